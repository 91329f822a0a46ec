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

  it('writes the seconds of an offset that is not a whole number of minutes (local mean time), as ±hh:mm:ss', () => {
    // Monrovia kept -0:44:30 until 1972; luxon reports it as -44.5 minutes.
    expect(formatBoundary({ ms: Date.parse('1971-01-01T00:44:30Z'), offsetMinutes: -44.5 })).toBe('1971-01-01T00:00:00.000-00:44:30');
    // Berlin's local mean time, +0:53:28, is 53.4666… minutes: no rounding error reaches the time.
    expect(formatBoundary({ ms: Date.parse('0000-12-31T23:06:32Z'), offsetMinutes: 53 + 28 / 60 })).toBe(
      '0001-01-01T00:00:00.000+00:53:28',
    );
  });

  it.each<[string, string, string, Granularity, string[]]>([
    [
      'Africa/Monrovia',
      '1971-01-01T00:00:00Z',
      '1971-01-03T00:00:00Z',
      'day',
      ['1970-12-31T00:00:00.000-00:44:30', '1971-01-01T00:00:00.000-00:44:30', '1971-01-02T00:00:00.000-00:44:30'],
    ],
    [
      'Europe/Berlin',
      '0001-01-01T00:00:00Z',
      '0001-01-01T02:00:00Z',
      'hour',
      ['0001-01-01T00:00:00.000+00:53:28', '0001-01-01T01:00:00.000+00:53:28', '0001-01-01T02:00:00.000+00:53:28'],
    ],
  ])('both implementations label %s buckets with the offset in seconds', (zone, start, end, granularity, expected) => {
    expect(bucketStartTimes(new Date(start), new Date(end), granularity, zone).map(formatBucketStart)).toEqual(expected);
    expect(bucketBoundaries(new Date(start), new Date(end), granularity, zone).map(formatBoundary)).toEqual(expected);
  });
});
