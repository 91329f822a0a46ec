import {
  balanceCrossings,
  billedMinutes,
  chargeCents,
  connectionCharge,
  isParticipantKind,
  participantClassOf,
  rateFor,
  startedMinutes,
  type ParticipantClass,
  type ParticipantKind,
} from './billing';

const t0 = Date.UTC(2026, 0, 1);

describe('startedMinutes', () => {
  it.each([
    ['zero length', 0, 1],
    ['1 ms', 1, 1],
    ['59.999 s', 59_999, 1],
    ['exactly 60 s', 60_000, 1],
    ['60.001 s', 60_001, 2],
    ['exactly 2 min', 120_000, 2],
    ['1 h', 3_600_000, 60],
    ['clock skew: left before joined', -5_000, 1],
  ])('%s → %i', (_, lengthMs, minutes) => {
    expect(startedMinutes(t0, t0 + lengthMs)).toBe(minutes);
  });

  it.each([
    [-1, t0],
    [t0, 1.5],
    [Number.NaN, t0],
    [t0, Number.POSITIVE_INFINITY],
  ])('rejects (%d, %d)', (joined, left) => {
    expect(() => startedMinutes(joined, left)).toThrow(RangeError);
  });
});

describe('billedMinutes', () => {
  it.each([
    ['under the cap', 90_000, 1440, 2],
    ['exactly the cap', 1440 * 60_000, 1440, 1440],
    ['a join dated 30 days back', 30 * 24 * 3_600_000, 1440, 1440],
    ['a cap of 0 still bills the started minute', 60_000, 0, 1],
  ])('%s', (_, lengthMs, cap, minutes) => {
    expect(billedMinutes(t0, t0 + lengthMs, cap)).toBe(minutes);
  });

  it('rejects a broken cap', () => {
    expect(() => billedMinutes(t0, t0, -1)).toThrow(RangeError);
  });
});

describe('chargeCents', () => {
  it.each([
    [1, 3, 3],
    [7, 6, 42],
    [0, 6, 0],
    [10, 0, 0],
  ])('%i min × %i ¢ = %i ¢', (minutes, rate, cents) => {
    expect(chargeCents(minutes, rate)).toBe(cents);
  });

  it.each([
    [-1, 3],
    [1, -3],
    [1.5, 3],
    [1, 2.5],
    [Number.MAX_SAFE_INTEGER, 2],
  ])('rejects %d × %d', (minutes, rate) => {
    expect(() => chargeCents(minutes, rate)).toThrow(RangeError);
  });
});

describe('participantClassOf / rateFor', () => {
  const card = { participant: 3, translator: 6 };

  it.each<[ParticipantKind, ParticipantClass, number]>([
    ['member', 'participant', 3],
    ['guest', 'participant', 3],
    ['translator', 'translator', 6],
  ])('%s → %s at %i ¢/min', (kind, cls, rate) => {
    expect(participantClassOf(kind)).toBe(cls);
    expect(rateFor(card, cls)).toBe(rate);
  });

  it('rejects a broken rate card', () => {
    expect(() => rateFor({ participant: -1, translator: 6 }, 'participant')).toThrow(RangeError);
  });

  it.each([
    ['guest', true],
    ['agent', false],
  ])('isParticipantKind(%s) → %s', (value, expected) => {
    expect(isParticipantKind(value)).toBe(expected);
  });
});

describe('connectionCharge', () => {
  it('bills every started minute at the rate', () => {
    expect(connectionCharge(t0, t0 + 61_000, 6)).toEqual({ minutes: 2, cents: 12 });
  });
});

describe('balanceCrossings', () => {
  it.each<[string, number, number, number | null, string[]]>([
    ['falls below the threshold', 1500, 900, 1000, ['credit.low']],
    ['falls from exactly the threshold to below it', 1000, 999, 1000, ['credit.low']],
    ['falls to exactly the threshold (not below)', 1500, 1000, 1000, []],
    ['already below the threshold, falls further', 900, 800, 1000, []],
    ['no threshold set', 1500, 900, null, []],
    ['falls to exactly zero', 100, 0, null, ['credit.exhausted']],
    ['falls below zero', 100, -20, null, ['credit.exhausted']],
    ['already at zero, falls further', 0, -20, null, []],
    ['already below zero, rises but stays below', -50, -10, 1000, []],
    ['crosses both lines in one move', 1500, -5, 1000, ['credit.low', 'credit.exhausted']],
    ['rises across both lines', -5, 1500, 1000, []],
    ['a threshold of zero: falling to zero is not below it', 10, 0, 0, ['credit.exhausted']],
    ['a threshold of zero: falling below it', 10, -1, 0, ['credit.low', 'credit.exhausted']],
  ])('%s', (_, before, after, threshold, expected) => {
    expect(balanceCrossings(before, after, threshold)).toEqual(expected);
  });
});
