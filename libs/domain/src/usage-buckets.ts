import { DateTime } from 'luxon';
import { ianaZone } from './time-zone';
import type { Granularity } from './usage-window';

/**
 * Bucket starts are written `yyyy-MM-ddTHH:mm:ss.SSS±hh:mm`: always milliseconds, always a numeric
 * offset (UTC is `+00:00`, never `Z`), e.g. `2026-03-29T00:00:00.000+01:00`.
 */
export function formatBucketStart(start: DateTime): string {
  return start.toFormat("yyyy-MM-dd'T'HH:mm:ss.SSSZZ");
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
