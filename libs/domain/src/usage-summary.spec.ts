import { avgRoomMinutes, summarize, usageBuckets } from './usage-summary';
import type { UsageWindow } from './usage-window';

describe('avgRoomMinutes', () => {
  it.each([
    [0, 0, 0],
    [10, 0, 0],
    [10, 1, 10],
    [10, 4, 3],
    [10, 3, 3],
    [5, 2, 3],
    [7, 2, 4],
  ])('%i min over %i sessions → %i', (minutes, sessions, avg) => {
    expect(avgRoomMinutes(minutes, sessions)).toBe(avg);
  });
});

describe('summarize', () => {
  it.each([
    [[], { totalMinutes: 0, totalRooms: 0, totalParticipants: 0 }],
    [
      [
        { minutes: 10, sessions: 2, participants: 5 },
        { minutes: 0, sessions: 0, participants: 0 },
        { minutes: 7, sessions: 1, participants: 2 },
      ],
      { totalMinutes: 17, totalRooms: 3, totalParticipants: 7 },
    ],
  ])('%j', (buckets, summary) => {
    expect(summarize(buckets)).toEqual(summary);
  });
});

describe('usageBuckets', () => {
  const window: UsageWindow = {
    startsAfter: new Date('2026-03-28T12:00:00+01:00'),
    endsBefore: new Date('2026-03-31T00:00:00+02:00'),
    granularity: 'day',
    timezone: 'Europe/Berlin',
  };

  it('puts each room in the bucket holding its start and keeps empty buckets', () => {
    const buckets = usageBuckets(window, [
      { startedAt: new Date('2026-03-28T12:00:00+01:00'), minutes: 10, participants: 2 },
      { startedAt: new Date('2026-03-28T23:59:59.999+01:00'), minutes: 5, participants: 3 },
      { startedAt: new Date('2026-03-30T00:00:00+02:00'), minutes: 7, participants: 1 },
      { startedAt: new Date('2026-03-28T11:59:59.999+01:00'), minutes: 100, participants: 100 },
      { startedAt: new Date('2026-03-31T00:00:00+02:00'), minutes: 100, participants: 100 },
    ]);
    expect(buckets).toEqual([
      { bucket: '2026-03-28T00:00:00.000+01:00', minutes: 15, sessions: 2, participants: 5, avgRoomMinutes: 8 },
      { bucket: '2026-03-29T00:00:00.000+01:00', minutes: 0, sessions: 0, participants: 0, avgRoomMinutes: 0 },
      { bucket: '2026-03-30T00:00:00.000+02:00', minutes: 7, sessions: 1, participants: 1, avgRoomMinutes: 7 },
    ]);
    expect(summarize(buckets)).toEqual({ totalMinutes: 22, totalRooms: 3, totalParticipants: 6 });
  });

  it('places rooms in the doubled fall-back hour by instant', () => {
    const buckets = usageBuckets(
      {
        startsAfter: new Date('2026-10-25T02:00:00+02:00'),
        endsBefore: new Date('2026-10-25T03:00:00+01:00'),
        granularity: 'hour',
        timezone: 'Europe/Berlin',
      },
      [
        { startedAt: new Date('2026-10-25T02:30:00+02:00'), minutes: 1, participants: 1 },
        { startedAt: new Date('2026-10-25T02:30:00+01:00'), minutes: 2, participants: 1 },
      ],
    );
    expect(buckets.map((bucket) => [bucket.bucket, bucket.minutes])).toEqual([
      ['2026-10-25T02:00:00.000+02:00', 1],
      ['2026-10-25T02:00:00.000+01:00', 2],
    ]);
  });
});
