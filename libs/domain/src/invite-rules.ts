import { DomainError, type FieldIssue } from './errors';
import { isLiveRoom, type RoomStatus } from './room-status';

export const EXPIRES_IN_SECONDS_MIN = 60;
export const EXPIRES_IN_SECONDS_MAX = 2_592_000;
export const MAX_USES_MIN = 1;
export const MAX_USES_MAX = 100;

export type InviteState = 'valid' | 'expired' | 'spent' | 'room_ended';
export type InviteGoneState = Exclude<InviteState, 'valid'>;

export interface InviteFacts {
  expiresAt: Date;
  maxUses: number;
  usesSpent: number;
  roomStatus: RoomStatus;
  now: Date;
}

/**
 * Precedence when several apply: room ended, then expired, then spent. The most permanent reason
 * wins, so the message never suggests a new link for a room that is over.
 * A link is expired from the instant `expiresAt` on (expiresAt itself is already expired).
 */
export function inviteState(facts: InviteFacts): InviteState {
  if (!isLiveRoom(facts.roomStatus)) return 'room_ended';
  if (facts.now.getTime() >= facts.expiresAt.getTime()) return 'expired';
  if (facts.usesSpent >= facts.maxUses) return 'spent';
  return 'valid';
}

const GONE_MESSAGES: Readonly<Record<InviteGoneState, string>> = {
  expired: 'This invite link has expired.',
  spent: 'This invite link has no uses left.',
  room_ended: 'The room of this invite link has ended.',
};

export function inviteGoneMessage(state: InviteGoneState): string {
  return GONE_MESSAGES[state];
}

/** A link that was valid but can no longer be used (410); `code` says which reason. */
export class InviteGone extends DomainError {
  readonly code: `invite_${InviteGoneState}`;

  constructor(readonly state: InviteGoneState) {
    super(inviteGoneMessage(state));
    this.code = `invite_${state}`;
  }
}

/** Throws InviteGone unless the link is valid. */
export function assertInviteUsable(facts: InviteFacts): void {
  const state = inviteState(facts);
  if (state !== 'valid') throw new InviteGone(state);
}

/** Minting on an ended room is refused with the same 410 as looking up a link of an ended room. */
export function assertCanMintInvite(roomStatus: RoomStatus): void {
  if (!isLiveRoom(roomStatus)) throw new InviteGone('room_ended');
}

export function inviteExpiresAt(now: Date, expiresInSeconds: number): Date {
  return new Date(now.getTime() + expiresInSeconds * 1000);
}

/** Bounds check of a mint request; one issue per violated bound, with the bound in `ctx`. */
export function inviteBoundsIssues(input: { expiresInSeconds: number; maxUses: number }): FieldIssue[] {
  return [
    ...boundIssues('expires_in_seconds', input.expiresInSeconds, EXPIRES_IN_SECONDS_MIN, EXPIRES_IN_SECONDS_MAX),
    ...boundIssues('max_uses', input.maxUses, MAX_USES_MIN, MAX_USES_MAX),
  ];
}

function boundIssues(field: string, value: number, min: number, max: number): FieldIssue[] {
  if (!Number.isInteger(value)) {
    return [{ loc: [field], type: 'int_parsing', msg: 'Input should be a valid integer.', input: value }];
  }
  if (value < min) {
    return [
      { loc: [field], type: 'greater_than_equal', msg: `Input should be greater than or equal to ${min}.`, input: value, ctx: { ge: min } },
    ];
  }
  if (value > max) {
    return [
      { loc: [field], type: 'less_than_equal', msg: `Input should be less than or equal to ${max}.`, input: value, ctx: { le: max } },
    ];
  }
  return [];
}
