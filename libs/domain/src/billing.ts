export const PARTICIPANT_KINDS = ['member', 'guest', 'translator'] as const;
/** `member`: token from the join-token endpoint; `guest`: invite join; `translator`: the agent. */
export type ParticipantKind = (typeof PARTICIPANT_KINDS)[number];

export const PARTICIPANT_CLASSES = ['participant', 'translator'] as const;
/** The rate class a connection is billed at. */
export type ParticipantClass = (typeof PARTICIPANT_CLASSES)[number];

/** Cents per started minute, per class. */
export interface RateCard {
  participant: number;
  translator: number;
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

/**
 * Minutes billed for one connection: every started minute, at least 1. A leave at or before the join
 * (clock skew between events) still bills 1.
 */
export function startedMinutes(joinedAtMs: number, leftAtMs: number): number {
  requireNonNegativeInteger('joinedAtMs', joinedAtMs);
  requireNonNegativeInteger('leftAtMs', leftAtMs);
  return Math.max(1, Math.ceil((leftAtMs - joinedAtMs) / MS_PER_MINUTE));
}

/**
 * Minutes billed for one connection: its started minutes, capped at `maxMinutes`, so a forged or
 * broken join time can never bill more than one connection's longest plausible length.
 */
export function billedMinutes(joinedAtMs: number, leftAtMs: number, maxMinutes: number): number {
  requireNonNegativeInteger('maxMinutes', maxMinutes);
  return Math.min(startedMinutes(joinedAtMs, leftAtMs), Math.max(1, maxMinutes));
}

export function chargeCents(minutes: number, centsPerMinute: number): number {
  requireNonNegativeInteger('minutes', minutes);
  requireNonNegativeInteger('centsPerMinute', centsPerMinute);
  const cents = minutes * centsPerMinute;
  if (!Number.isSafeInteger(cents)) throw new RangeError(`Charge of ${minutes} × ${centsPerMinute} cents is out of range.`);
  return cents;
}

export function rateFor(card: RateCard, participantClass: ParticipantClass): number {
  const rate = card[participantClass];
  requireNonNegativeInteger(`rate of ${participantClass}`, rate);
  return rate;
}

export interface ConnectionCharge {
  minutes: number;
  cents: number;
}

/** Minutes and cents of one ended connection at the given per-minute rate. */
export function connectionCharge(joinedAtMs: number, leftAtMs: number, centsPerMinute: number): ConnectionCharge {
  const minutes = startedMinutes(joinedAtMs, leftAtMs);
  return { minutes, cents: chargeCents(minutes, centsPerMinute) };
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
