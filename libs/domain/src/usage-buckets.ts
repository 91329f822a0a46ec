import { DateTime } from 'luxon';
import { ianaZone } from './time-zone';
import type { Granularity } from './usage-window';

/**
 * Bucket starts are written `yyyy-MM-ddTHH:mm:ss.SSS±hh:mm`: always milliseconds, always a numeric
 * offset (UTC is `+00:00`, never `Z`), e.g. `2026-03-29T00:00:00.000+01:00`. An offset that is not a
 * whole number of minutes (local mean time before standard time: Monrovia's -0:44:30) carries its
 * seconds, `±hh:mm:ss`, as Python's isoformat writes it.
 */
export function formatBucketStart(start: DateTime): string {
  return formatBoundary({ ms: start.toMillis(), offsetMinutes: start.offset });
}

/** Start of the local hour, local midnight, or local Monday midnight holding `instant`. */
export function bucketStartOf(instant: Date, granularity: Granularity, timezone: string): string {
  return formatBucketStart(alignedStart(DateTime.fromJSDate(instant, { zone: ianaZone(timezone) }), granularity));
}

/**
 * Every bucket start, oldest first, from the bucket holding `startsAfter` to the bucket holding the
 * last instant before `endsBefore`. Empty when the window is empty.
 */
export function bucketStarts(startsAfter: Date, endsBefore: Date, granularity: Granularity, timezone: string): string[] {
  return bucketStartTimes(startsAfter, endsBefore, granularity, timezone).map(formatBucketStart);
}

/** bucketStarts as luxon DateTimes in the zone, for callers that place instants into buckets. */
export function bucketStartTimes(startsAfter: Date, endsBefore: Date, granularity: Granularity, timezone: string): DateTime[] {
  if (endsBefore.getTime() <= startsAfter.getTime()) return [];
  const zone = ianaZone(timezone);
  const last = alignedStart(DateTime.fromMillis(endsBefore.getTime() - 1, { zone }), granularity).toMillis();
  const starts: DateTime[] = [];
  let current = alignedStart(DateTime.fromJSDate(startsAfter, { zone }), granularity);
  while (current.toMillis() <= last) {
    starts.push(current);
    current = nextStart(current, granularity);
  }
  return starts;
}

function alignedStart(instant: DateTime, granularity: Granularity): DateTime {
  // luxon's startOf('week') is the ISO week: Monday.
  return instant.startOf(granularity);
}

function nextStart(current: DateTime, granularity: Granularity): DateTime {
  // Hours step in elapsed time (25 on a fall-back day); days and weeks step on the calendar.
  const stepped = current.plus({ [`${granularity}s`]: 1 });
  const aligned = alignedStart(stepped, granularity);
  // Half-hour DST shifts (Australia/Lord_Howe) can align back onto the current bucket; never stall.
  return aligned.toMillis() > current.toMillis() ? aligned : stepped;
}

/** A bucket start as an instant and the zone's UTC offset there, in minutes. */
export interface BucketBoundary {
  ms: number;
  offsetMinutes: number;
}

const HOUR_MS = 3_600_000;
const SECOND_MS = 1_000;

/**
 * bucketStartTimes without a DateTime per bucket: a 90-day hourly window has about 2,160 buckets
 * and luxon spends milliseconds on each. Hours step in elapsed time and re-align to the local hour
 * only where the zone's offset changes; days and weeks (at most ~100) use luxon's calendar.
 */
export function bucketBoundaries(startsAfter: Date, endsBefore: Date, granularity: Granularity, timezone: string): BucketBoundary[] {
  if (granularity !== 'hour') {
    return bucketStartTimes(startsAfter, endsBefore, granularity, timezone).map((start) => ({
      ms: start.toMillis(),
      offsetMinutes: start.offset,
    }));
  }
  if (endsBefore.getTime() <= startsAfter.getTime()) return [];
  const zone = ianaZone(timezone);
  const last = alignedStart(DateTime.fromMillis(endsBefore.getTime() - 1, { zone }), 'hour').toMillis();
  const out: BucketBoundary[] = [];
  let ms = alignedStart(DateTime.fromJSDate(startsAfter, { zone }), 'hour').toMillis();
  let offset = DateTime.fromMillis(ms, { zone }).offset;
  while (ms <= last) {
    // Offsets change at most a few times a year: look a day ahead, and walk hour by hour only
    // through a day in which the offset changes.
    const dayAhead = ms + 24 * HOUR_MS;
    if (zone.offset(dayAhead) === offset) {
      for (; ms < dayAhead && ms <= last; ms += HOUR_MS) out.push({ ms, offsetMinutes: offset });
      continue;
    }
    // A day with a transition: walk it on luxon's calendar, exactly as bucketStartTimes does.
    let current: DateTime = DateTime.fromMillis(ms, { zone });
    while (current.toMillis() < dayAhead && current.toMillis() <= last) {
      out.push({ ms: current.toMillis(), offsetMinutes: current.offset });
      current = nextStart(current, 'hour');
    }
    ms = current.toMillis();
    offset = current.offset;
  }
  return out;
}

/** formatBucketStart for a BucketBoundary, without luxon. */
export function formatBoundary({ ms, offsetMinutes }: BucketBoundary): string {
  // luxon reports offsets in (possibly fractional) minutes; zones' offsets are whole seconds.
  const offsetSeconds = Math.round(offsetMinutes * 60);
  const local = new Date(ms + offsetSeconds * SECOND_MS).toISOString().slice(0, 23);
  const abs = Math.abs(offsetSeconds);
  const pad = (n: number) => String(n).padStart(2, '0');
  const seconds = abs % 60 === 0 ? '' : `:${pad(abs % 60)}`;
  return `${local}${offsetSeconds < 0 ? '-' : '+'}${pad(Math.floor(abs / 3600))}:${pad(Math.floor(abs / 60) % 60)}${seconds}`;
}
