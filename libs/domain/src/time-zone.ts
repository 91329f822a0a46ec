import { IANAZone } from 'luxon';

// Offsets spelled as zones ("+05:30", "UTC+5", "GMT-3", "0530"): luxon and newer Intl accept them; the API does not.
const FIXED_OFFSET = /^(?:(?:utc|gmt)\s*[+\-\u2212]|[+\-\u2212\d])/i;

/**
 * True for a real IANA zone name Intl knows (case-insensitively, as Intl does), including `UTC`,
 * `Etc/UTC` and `Etc/GMT+5`; false for fixed offsets and luxon's pseudo zones (`local`, `system`).
 */
export function isIanaZoneName(name: string): boolean {
  return name.length > 0 && !FIXED_OFFSET.test(name) && IANAZone.isValidZone(name);
}

/** The luxon zone of a name accepted by isIanaZoneName; throws RangeError otherwise (a caller bug). */
export function ianaZone(name: string): IANAZone {
  if (!isIanaZoneName(name)) throw new RangeError(`${JSON.stringify(name)} is not an IANA time zone name.`);
  return IANAZone.create(name);
}
