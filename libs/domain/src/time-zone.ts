import { IANAZone } from 'luxon';

// Offsets spelled as zones ("+05:30", "UTC+5", "GMT-3", "0530"): luxon and newer Intl accept them; the API does not.
const FIXED_OFFSET = /^(?:(?:utc|gmt)\s*[+\-\u2212]|[+\-\u2212\d])/i;

/**
 * True for a real IANA zone name Intl knows (case-insensitively, as Intl does), including `UTC`,
 * `Etc/UTC` and `Etc/GMT+5`; false for fixed offsets and luxon's pseudo zones (`local`, `system`).
 */
export function isIanaZoneName(name: string): boolean {
  if (KNOWN_ZONES.has(name)) return true;
  // Asking Intl builds a formatter each time (slow); there are a few hundred real zones, so the
  // names found valid are remembered (invalid ones are not; and case variants, valid to Intl, can
  // never grow the set past a bound).
  const valid = name.length > 0 && !FIXED_OFFSET.test(name) && IANAZone.isValidZone(name);
  if (valid) {
    if (KNOWN_ZONES.size >= 5000) KNOWN_ZONES.clear();
    KNOWN_ZONES.add(name);
  }
  return valid;
}

const KNOWN_ZONES = new Set<string>();

/** The luxon zone of a name accepted by isIanaZoneName; throws RangeError otherwise (a caller bug). */
export function ianaZone(name: string): IANAZone {
  if (!isIanaZoneName(name)) throw new RangeError(`${JSON.stringify(name)} is not an IANA time zone name.`);
  return IANAZone.create(name);
}
