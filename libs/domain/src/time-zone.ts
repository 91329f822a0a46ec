import { IANAZone } from 'luxon';
import { IANA_ZONE_NAMES } from './time-zone-names';

// Offsets spelled as zones ("+05:30", "UTC+5", "GMT-3", "0530"): luxon and newer Intl accept them; the API does not.
const FIXED_OFFSET = /^(?:(?:utc|gmt)\s*[+\-\u2212]|[+\-\u2212\d])/i;

/**
 * True for a real IANA zone or link name that Intl knows, spelled exactly as the time zone database
 * spells it (`Europe/Berlin`, `US/Eastern`, `Asia/Calcutta`, `UTC`, `Etc/UTC`, `Etc/GMT+5`); false
 * for a name that matches one only case-insensitively (`europe/berlin`: Intl accepts it, zoneinfo
 * does not), for fixed offsets and for luxon's pseudo zones (`local`, `system`).
 */
export function isIanaZoneName(name: string): boolean {
  if (KNOWN_ZONES.has(name)) return true;
  // Asking Intl builds a formatter each time (slow); there are a few hundred real zones, so the
  // names found valid are remembered (invalid ones are not, and only exact names are valid, so the
  // set never grows past the database's names).
  const valid = name.length > 0 && exactName(name) && IANAZone.isValidZone(name);
  if (valid) {
    if (KNOWN_ZONES.size >= 5000) KNOWN_ZONES.clear();
    KNOWN_ZONES.add(name);
  }
  return valid;
}

const KNOWN_ZONES = new Set<string>();

/**
 * A name of the database (links such as `GMT+0` included), or else a zone newer than our list that
 * Intl knows by exactly this name (Intl resolves any spelling to its own canonical spelling).
 */
function exactName(name: string): boolean {
  if (IANA_ZONE_NAMES.has(name)) return true;
  if (FIXED_OFFSET.test(name)) return false;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone === name;
  } catch {
    return false;
  }
}

/** The luxon zone of a name accepted by isIanaZoneName; throws RangeError otherwise (a caller bug). */
export function ianaZone(name: string): IANAZone {
  if (!isIanaZoneName(name)) throw new RangeError(`${JSON.stringify(name)} is not an IANA time zone name.`);
  return IANAZone.create(name);
}
