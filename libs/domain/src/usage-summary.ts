import { bucketStartTimes, formatBucketStart } from './usage-buckets';
import type { UsageWindow } from './usage-window';

/** One room's contribution, counted in the bucket holding its start. */
export interface RoomUsageSample {
  startedAt: Date;
  /** Connection minutes of the room, the translator's included. */
  minutes: number;
  /** Non-translator connections; a participant who rejoined counts twice. */
  participants: number;
}

export interface UsageBucket {
  /** Bucket start, see formatBucketStart. */
  bucket: string;
  minutes: number;
  /** Rooms started in the bucket. */
  sessions: number;
  participants: number;
  avgRoomMinutes: number;
}

export interface UsageSummary {
  totalMinutes: number;
  totalRooms: number;
  totalParticipants: number;
}

/** round(minutes / sessions), 0 without sessions. */
export function avgRoomMinutes(minutes: number, sessions: number): number {
  return sessions > 0 ? Math.round(minutes / sessions) : 0;
}

/** The summary is the sum of the buckets. */
export function summarize(buckets: readonly Pick<UsageBucket, 'minutes' | 'sessions' | 'participants'>[]): UsageSummary {
  let totalMinutes = 0;
  let totalRooms = 0;
  let totalParticipants = 0;
  for (const bucket of buckets) {
    totalMinutes += bucket.minutes;
    totalRooms += bucket.sessions;
    totalParticipants += bucket.participants;
  }
  return { totalMinutes, totalRooms, totalParticipants };
}

/**
 * Every bucket of the window, empty ones included, oldest first, with each room in the bucket
 * holding its `startedAt`. Rooms started outside [startsAfter, endsBefore) are left out.
 */
export function usageBuckets(window: UsageWindow, rooms: readonly RoomUsageSample[]): UsageBucket[] {
  const starts = bucketStartTimes(window.startsAfter, window.endsBefore, window.granularity, window.timezone);
  const startMs = starts.map((start) => start.toMillis());
  const totals = starts.map(() => ({ minutes: 0, sessions: 0, participants: 0 }));
  for (const room of rooms) {
    const at = room.startedAt.getTime();
    if (at < window.startsAfter.getTime() || at >= window.endsBefore.getTime()) continue;
    const total = totals[lastIndexAtOrBefore(startMs, at)];
    total.minutes += room.minutes;
    total.sessions += 1;
    total.participants += room.participants;
  }
  return totals.map((total, index) => ({
    bucket: formatBucketStart(starts[index]),
    ...total,
    avgRoomMinutes: avgRoomMinutes(total.minutes, total.sessions),
  }));
}

// Binary search: the bucket a time falls in is the last one starting at or before it.
function lastIndexAtOrBefore(sorted: readonly number[], value: number): number {
  let low = 0;
  let high = sorted.length - 1;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (sorted[middle] <= value) low = middle;
    else high = middle - 1;
  }
  return low;
}
