import { bucketStartOf, bucketStarts } from './usage-buckets';
import type { Granularity } from './usage-window';

const at = (iso: string) => new Date(iso);
const starts = (from: string, to: string, granularity: Granularity, zone: string) => bucketStarts(at(from), at(to), granularity, zone);

describe('bucketStarts', () => {
  it('Berlin days across spring-forward start at local midnight', () => {
    expect(starts('2026-03-28T00:00:00+01:00', '2026-03-31T00:00:00+02:00', 'day', 'Europe/Berlin')).toEqual([
      '2026-03-28T00:00:00.000+01:00',
      '2026-03-29T00:00:00.000+01:00',
      '2026-03-30T00:00:00.000+02:00',
    ]);
  });

  it.each<[string, string, string, string, number]>([
    ['Berlin spring-forward day', 'Europe/Berlin', '2026-03-29T00:00:00+01:00', '2026-03-30T00:00:00+02:00', 23],
    ['Berlin fall-back day', 'Europe/Berlin', '2026-10-25T00:00:00+02:00', '2026-10-26T00:00:00+01:00', 25],
    ['Berlin ordinary day', 'Europe/Berlin', '2026-06-01T00:00:00+02:00', '2026-06-02T00:00:00+02:00', 24],
    ['New York spring-forward day', 'America/New_York', '2026-03-08T00:00:00-05:00', '2026-03-09T00:00:00-04:00', 23],
    ['UTC day', 'UTC', '2026-03-29T00:00:00Z', '2026-03-30T00:00:00Z', 24],
  ])('%s has %i hourly buckets', (_, zone, from, to, count) => {
    expect(starts(from, to, 'hour', zone)).toHaveLength(count);
  });

  it('hourly buckets across spring-forward skip the missing hour', () => {
    expect(starts('2026-03-29T01:00:00+01:00', '2026-03-29T04:00:00+02:00', 'hour', 'Europe/Berlin')).toEqual([
      '2026-03-29T01:00:00.000+01:00',
      '2026-03-29T03:00:00.000+02:00',
    ]);
  });

  it('hourly buckets across fall-back repeat the doubled hour with both offsets', () => {
    expect(starts('2026-10-25T01:00:00+02:00', '2026-10-25T04:00:00+01:00', 'hour', 'Europe/Berlin')).toEqual([
      '2026-10-25T01:00:00.000+02:00',
      '2026-10-25T02:00:00.000+02:00',
      '2026-10-25T02:00:00.000+01:00',
      '2026-10-25T03:00:00.000+01:00',
    ]);
  });

  it.each([
    [
      'America/St_Johns',
      '2026-07-01T12:00:00Z',
      '2026-07-01T15:00:00Z',
      ['09:00:00.000-02:30', '10:00:00.000-02:30', '11:00:00.000-02:30', '12:00:00.000-02:30'],
      ':30',
    ],
    [
      'Asia/Kathmandu',
      '2026-07-01T12:00:00Z',
      '2026-07-01T15:00:00Z',
      ['17:00:00.000+05:45', '18:00:00.000+05:45', '19:00:00.000+05:45', '20:00:00.000+05:45'],
      ':15',
    ],
    [
      'Asia/Kolkata',
      '2026-07-01T12:00:00Z',
      '2026-07-01T14:00:00Z',
      ['17:00:00.000+05:30', '18:00:00.000+05:30', '19:00:00.000+05:30'],
      ':30',
    ],
  ])('%s hourly buckets start at local :00', (zone, from, to, times, utcMinutes) => {
    const buckets = starts(from, to, 'hour', zone);
    expect(buckets.map((bucket) => bucket.slice(11))).toEqual(times);
    for (const bucket of buckets) expect(new Date(bucket).toISOString().slice(13, 16)).toBe(utcMinutes);
  });

  it('St Johns days start at local midnight across its spring-forward', () => {
    expect(starts('2026-03-07T12:00:00Z', '2026-03-10T00:00:00Z', 'day', 'America/St_Johns')).toEqual([
      '2026-03-07T00:00:00.000-03:30',
      '2026-03-08T00:00:00.000-03:30',
      '2026-03-09T00:00:00.000-02:30',
    ]);
  });

  it('week buckets start on the local Monday at midnight', () => {
    // 2026-03-25 is a Wednesday; Berlin switches to summer time on Sunday 2026-03-29.
    expect(starts('2026-03-25T15:00:00+01:00', '2026-04-08T00:00:00+02:00', 'week', 'Europe/Berlin')).toEqual([
      '2026-03-23T00:00:00.000+01:00',
      '2026-03-30T00:00:00.000+02:00',
      '2026-04-06T00:00:00.000+02:00',
    ]);
  });

  it('week buckets follow the zone, not UTC: Sunday evening in UTC is Monday in Tokyo', () => {
    expect(starts('2026-03-29T20:00:00Z', '2026-03-29T21:00:00Z', 'week', 'Asia/Tokyo')).toEqual(['2026-03-30T00:00:00.000+09:00']);
    expect(starts('2026-03-29T20:00:00Z', '2026-03-29T21:00:00Z', 'week', 'UTC')).toEqual(['2026-03-23T00:00:00.000+00:00']);
  });

  it.each<[Granularity, string, string, string[]]>([
    ['hour', '2026-05-01T10:45:00Z', '2026-05-01T12:00:00Z', ['2026-05-01T10:00:00.000+00:00', '2026-05-01T11:00:00.000+00:00']],
    ['day', '2026-05-01T18:00:00Z', '2026-05-02T06:00:00Z', ['2026-05-01T00:00:00.000+00:00', '2026-05-02T00:00:00.000+00:00']],
    [
      'hour',
      '2026-05-01T10:00:00Z',
      '2026-05-01T12:00:00.001Z',
      ['2026-05-01T10:00:00.000+00:00', '2026-05-01T11:00:00.000+00:00', '2026-05-01T12:00:00.000+00:00'],
    ],
  ])('%s window starting mid-bucket includes the bucket holding the start (%s..%s)', (granularity, from, to, expected) => {
    expect(starts(from, to, granularity, 'UTC')).toEqual(expected);
  });

  it('an end exactly on a bucket boundary does not open a new bucket', () => {
    expect(starts('2026-05-01T00:00:00Z', '2026-05-03T00:00:00Z', 'day', 'UTC')).toHaveLength(2);
  });

  it.each([
    ['hour', 2160],
    ['day', 90],
    ['week', 13],
  ] as const)('90 UTC days hold %s buckets: %i', (granularity, count) => {
    // 2026-01-05 is a Monday.
    expect(starts('2026-01-05T00:00:00Z', '2026-04-05T00:00:00Z', granularity, 'UTC')).toHaveLength(count);
  });

  it('90 Berlin days across spring-forward hold 2159 hourly buckets', () => {
    expect(starts('2026-03-01T00:00:00+01:00', '2026-05-30T00:00:00+02:00', 'hour', 'Europe/Berlin')).toHaveLength(2159);
  });

  it('is empty for an empty window', () => {
    expect(starts('2026-05-01T00:00:00Z', '2026-05-01T00:00:00Z', 'hour', 'UTC')).toEqual([]);
  });

  it('never stalls on a half-hour DST shift (Lord Howe fall-back)', () => {
    const buckets = starts('2026-04-04T12:00:00Z', '2026-04-05T18:00:00Z', 'hour', 'Australia/Lord_Howe');
    const instants = buckets.map((bucket) => new Date(bucket).getTime());
    expect(instants).toEqual([...instants].sort((a, b) => a - b));
    expect(new Set(instants).size).toBe(instants.length);
  });
});

describe('bucketStartOf', () => {
  it.each<[string, Granularity, string, string]>([
    ['2026-03-29T03:30:00+02:00', 'hour', 'Europe/Berlin', '2026-03-29T03:00:00.000+02:00'],
    ['2026-03-29T12:00:00+02:00', 'day', 'Europe/Berlin', '2026-03-29T00:00:00.000+01:00'],
    ['2026-03-29T12:00:00+02:00', 'week', 'Europe/Berlin', '2026-03-23T00:00:00.000+01:00'],
    ['2026-03-30T00:00:00+02:00', 'week', 'Europe/Berlin', '2026-03-30T00:00:00.000+02:00'],
    ['2026-10-25T02:30:00+01:00', 'hour', 'Europe/Berlin', '2026-10-25T02:00:00.000+01:00'],
    ['2026-10-25T02:30:00+02:00', 'hour', 'Europe/Berlin', '2026-10-25T02:00:00.000+02:00'],
    ['2026-07-01T12:10:00Z', 'hour', 'America/St_Johns', '2026-07-01T09:00:00.000-02:30'],
    ['2026-07-01T12:10:00Z', 'hour', 'Asia/Kathmandu', '2026-07-01T17:00:00.000+05:45'],
    ['2026-07-01T23:59:59.999Z', 'day', 'UTC', '2026-07-01T00:00:00.000+00:00'],
    ['2026-07-01T23:59:59.999Z', 'day', 'Etc/UTC', '2026-07-01T00:00:00.000+00:00'],
  ])('%s by %s in %s → %s', (instant, granularity, zone, expected) => {
    expect(bucketStartOf(at(instant), granularity, zone)).toBe(expected);
  });

  it('refuses a fixed offset as zone', () => {
    expect(() => bucketStartOf(at('2026-07-01T00:00:00Z'), 'hour', '+05:30')).toThrow(RangeError);
  });
});
