import { bucketBoundaries, bucketStartTimes, formatBoundary, formatBucketStart } from './usage-buckets';
import type { Granularity } from './usage-window';

describe('bucketBoundaries (the fast path) agrees with the calendar implementation', () => {
  const zones = [
    'UTC',
    'Europe/Berlin',
    'America/St_Johns',
    'Asia/Kathmandu',
    'Australia/Lord_Howe',
    'America/New_York',
    'Asia/Kolkata',
    'Pacific/Chatham',
  ];
  const windows: [string, string][] = [
    ['2026-01-01T00:00:00Z', '2026-04-01T00:00:00Z'],
    ['2026-03-01T10:17:00Z', '2026-05-29T03:00:00Z'],
    ['2026-09-15T00:00:00Z', '2026-12-10T00:00:00Z'],
    ['2026-10-03T13:07:00+10:30', '2026-10-04T20:00:00+11:00'],
  ];
  const granularities: Granularity[] = ['hour', 'day', 'week'];

  it.each(zones)('in %s', (zone) => {
    for (const [start, end] of windows) {
      for (const granularity of granularities) {
        const slow = bucketStartTimes(new Date(start), new Date(end), granularity, zone).map(formatBucketStart);
        const fast = bucketBoundaries(new Date(start), new Date(end), granularity, zone).map(formatBoundary);
        expect({ zone, start, granularity, fast }).toEqual({ zone, start, granularity, fast: slow });
      }
    }
  });

  it('formats negative, fractional and zero offsets', () => {
    expect(formatBoundary({ ms: Date.parse('2026-06-01T02:30:00Z'), offsetMinutes: -150 })).toBe('2026-06-01T00:00:00.000-02:30');
    expect(formatBoundary({ ms: Date.parse('2026-06-01T04:15:00Z'), offsetMinutes: 345 })).toBe('2026-06-01T10:00:00.000+05:45');
    expect(formatBoundary({ ms: Date.parse('2026-06-01T00:00:00Z'), offsetMinutes: 0 })).toBe('2026-06-01T00:00:00.000+00:00');
  });
});
