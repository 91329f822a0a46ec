export const PARTICIPANT_KINDS = ['member', 'guest', 'translator'] as const;
/** `member`: token from the join-token endpoint; `guest`: invite join; `translator`: the agent. */
export type ParticipantKind = (typeof PARTICIPANT_KINDS)[number];

export const PARTICIPANT_CLASSES = ['participant', 'translator'] as const;
/** The rate class a connection is billed at. */
export type ParticipantClass = (typeof PARTICIPANT_CLASSES)[number];

/** Cents per started minute, per class (the shape of the API's configured rates). */
export interface RateCard {
  participantCentsPerMinute: number;
  translatorCentsPerMinute: number;
}

const MS_PER_MINUTE = 60_000;

export function participantClassOf(kind: ParticipantKind): ParticipantClass {
  switch (kind) {
    case 'member':
    case 'guest':
      return 'participant';
    case 'translator':
      return 'translator';
  }
}

export function isParticipantKind(value: unknown): value is ParticipantKind {
  return typeof value === 'string' && (PARTICIPANT_KINDS as readonly string[]).includes(value);
}

/** The cents per started minute a connection of this class is billed at. */
export function rateFor(card: RateCard, participantClass: ParticipantClass): number {
  const rate = { participant: card.participantCentsPerMinute, translator: card.translatorCentsPerMinute }[participantClass];
  requireNonNegativeInteger(`rate of ${participantClass}`, rate);
  return rate;
}

export interface ConnectionCharge {
  minutes: number;
  cents: number;
}

/**
 * Minutes and cents of one ended connection: every started minute, at least 1 (a leave at or before
 * the join, clock skew between events, still bills 1), capped at `maxMinutes` (so a forged or broken
 * join time never bills more than one connection's longest plausible length), at `centsPerMinute`.
 */
export function connectionCharge(joinedAtMs: number, leftAtMs: number, centsPerMinute: number, maxMinutes: number): ConnectionCharge {
  requireNonNegativeInteger('joinedAtMs', joinedAtMs);
  requireNonNegativeInteger('leftAtMs', leftAtMs);
  requireNonNegativeInteger('centsPerMinute', centsPerMinute);
  requireNonNegativeInteger('maxMinutes', maxMinutes);
  const started = Math.max(1, Math.ceil((leftAtMs - joinedAtMs) / MS_PER_MINUTE));
  const minutes = Math.min(started, Math.max(1, maxMinutes));
  const cents = minutes * centsPerMinute;
  if (!Number.isSafeInteger(cents)) throw new RangeError(`Charge of ${minutes} × ${centsPerMinute} cents is out of range.`);
  return { minutes, cents };
}

function requireNonNegativeInteger(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${name} must be a non-negative integer, got ${value}.`);
  }
}

/** A customer event sent when a balance moves across a line. */
export type BalanceCrossing = 'credit.low' | 'credit.exhausted';

/**
 * The lines a balance move from `before` to `after` crosses: `credit.low` when it falls from at or
 * above the low-balance threshold (null: none set) to below it, `credit.exhausted` when it falls
 * from above zero to zero or less. Moving back up crosses nothing, and re-arms both.
 */
export function balanceCrossings(before: number, after: number, threshold: number | null): BalanceCrossing[] {
  const crossings: BalanceCrossing[] = [];
  if (threshold !== null && before >= threshold && after < threshold) crossings.push('credit.low');
  if (before > 0 && after <= 0) crossings.push('credit.exhausted');
  return crossings;
}

/**
 * When a balance reaches zero while connections costing `centsPerMinute` in all stay open: null when
 * nothing is open, now when it is at or below zero already.
 */
export function runsOutAt(balanceCents: number, centsPerMinute: number, now: number): Date | null {
  if (centsPerMinute <= 0) return null;
  if (balanceCents <= 0) return new Date(now);
  return new Date(now + Math.floor((balanceCents / centsPerMinute) * 60_000));
}
