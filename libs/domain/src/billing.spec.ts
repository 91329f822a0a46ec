import {
  balanceCrossings,
  connectionCharge,
  isParticipantKind,
  participantClassOf,
  rateFor,
  runsOutAt,
  type ParticipantClass,
  type ParticipantKind,
} from './billing';

const t0 = Date.UTC(2026, 0, 1);
/** A cap no case below reaches. */
const NO_CAP = 1_000_000;

describe('connectionCharge: started minutes', () => {
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
    expect(connectionCharge(t0, t0 + lengthMs, 1, NO_CAP).minutes).toBe(minutes);
  });

  it.each([
    [-1, t0],
    [t0, 1.5],
    [Number.NaN, t0],
    [t0, Number.POSITIVE_INFINITY],
  ])('rejects (%d, %d)', (joined, left) => {
    expect(() => connectionCharge(joined, left, 1, NO_CAP)).toThrow(RangeError);
  });
});

describe('connectionCharge: the cap (MAX_CONNECTION_MINUTES)', () => {
  it.each([
    ['under the cap', 90_000, 1440, 2],
    ['exactly the cap', 1440 * 60_000, 1440, 1440],
    ['a join dated 30 days back', 30 * 24 * 3_600_000, 1440, 1440],
    ['a cap of 0 still bills the started minute', 60_000, 0, 1],
  ])('%s', (_, lengthMs, cap, minutes) => {
    expect(connectionCharge(t0, t0 + lengthMs, 6, cap)).toEqual({ minutes, cents: minutes * 6 });
  });

  it('rejects a broken cap', () => {
    expect(() => connectionCharge(t0, t0, 6, -1)).toThrow(RangeError);
  });
});

describe('connectionCharge: cents', () => {
  it.each([
    [1, 3, 3],
    [7, 6, 42],
    [10, 0, 0],
  ])('%i min × %i ¢ = %i ¢', (minutes, rate, cents) => {
    expect(connectionCharge(t0, t0 + minutes * 60_000, rate, NO_CAP)).toEqual({ minutes, cents });
  });

  it('bills every started minute at the rate', () => {
    expect(connectionCharge(t0, t0 + 61_000, 6, NO_CAP)).toEqual({ minutes: 2, cents: 12 });
  });

  it('bills the capped minutes, not the started ones', () => {
    expect(connectionCharge(t0, t0 + 3 * 3_600_000, 6, 60)).toEqual({ minutes: 60, cents: 360 });
  });

  it.each([
    ['a negative rate', 60_000, -3],
    ['a fractional rate', 60_000, 2.5],
    ['a charge past 2^53', 1_000 * 60_000, Number.MAX_SAFE_INTEGER],
  ])('rejects %s', (_, lengthMs, rate) => {
    expect(() => connectionCharge(t0, t0 + lengthMs, rate, NO_CAP)).toThrow(RangeError);
  });
});

describe('participantClassOf / rateFor', () => {
  const card = { participantCentsPerMinute: 3, translatorCentsPerMinute: 6 };

  it.each<[ParticipantKind, ParticipantClass, number]>([
    ['member', 'participant', 3],
    ['guest', 'participant', 3],
    ['translator', 'translator', 6],
  ])('%s → %s at %i ¢/min', (kind, cls, rate) => {
    expect(participantClassOf(kind)).toBe(cls);
    expect(rateFor(card, cls)).toBe(rate);
  });

  it('rejects a broken rate card', () => {
    expect(() => rateFor({ participantCentsPerMinute: -1, translatorCentsPerMinute: 6 }, 'participant')).toThrow(RangeError);
    expect(() => rateFor({ participantCentsPerMinute: 3, translatorCentsPerMinute: 1.5 }, 'translator')).toThrow(RangeError);
  });

  it.each([
    ['guest', true],
    ['agent', false],
  ])('isParticipantKind(%s) → %s', (value, expected) => {
    expect(isParticipantKind(value)).toBe(expected);
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

describe('runsOutAt', () => {
  const now = Date.UTC(2026, 0, 1, 12);
  it('is null while nothing is open', () => expect(runsOutAt(1000, 0, now)).toBeNull());
  it('is now when the balance is spent already', () => expect(runsOutAt(-5, 6, now)).toEqual(new Date(now)));
  it('is the balance divided by the rate, in minutes from now', () => {
    expect(runsOutAt(600, 6, now)).toEqual(new Date(now + 100 * 60_000));
    expect(runsOutAt(10, 3, now)).toEqual(new Date(now + 200_000));
  });
});
