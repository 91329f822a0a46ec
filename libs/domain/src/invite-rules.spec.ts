import {
  assertCanMintInvite,
  assertInviteUsable,
  InviteGone,
  inviteBoundsIssues,
  inviteExpiresAt,
  inviteGoneMessage,
  inviteState,
  type InviteFacts,
  type InviteState,
} from './invite-rules';

const now = new Date('2026-05-01T12:00:00.000Z');
const later = new Date(now.getTime() + 1);
const base: InviteFacts = { expiresAt: new Date(now.getTime() + 60_000), maxUses: 3, usesSpent: 0, roomStatus: 'active', now };

describe('inviteState', () => {
  it.each<[string, Partial<InviteFacts>, InviteState]>([
    ['fresh link', {}, 'valid'],
    ['created room', { roomStatus: 'created' }, 'valid'],
    ['one use left', { usesSpent: 2 }, 'valid'],
    ['one ms before expiry', { expiresAt: later }, 'valid'],
    ['at the expiry instant', { expiresAt: now }, 'expired'],
    ['after expiry', { expiresAt: new Date(now.getTime() - 1) }, 'expired'],
    ['all uses spent', { usesSpent: 3 }, 'spent'],
    ['room ended', { roomStatus: 'ended' }, 'room_ended'],
    ['expired and spent: expired wins', { expiresAt: now, usesSpent: 3 }, 'expired'],
    ['ended and expired: room_ended wins', { roomStatus: 'ended', expiresAt: now }, 'room_ended'],
    ['ended and spent: room_ended wins', { roomStatus: 'ended', usesSpent: 3 }, 'room_ended'],
  ])('%s → %s', (_, change, state) => {
    expect(inviteState({ ...base, ...change })).toBe(state);
  });
});

describe('inviteGoneMessage / InviteGone', () => {
  it.each([
    ['expired', 'This invite link has expired.', 'invite_expired'],
    ['spent', 'This invite link has no uses left.', 'invite_spent'],
    ['room_ended', 'The room of this invite link has ended.', 'invite_room_ended'],
  ] as const)('%s', (state, message, code) => {
    expect(inviteGoneMessage(state)).toBe(message);
    const error = new InviteGone(state);
    expect(error.message).toBe(message);
    expect(error.code).toBe(code);
  });

  it('assertInviteUsable throws only for an unusable link', () => {
    expect(() => assertInviteUsable(base)).not.toThrow();
    expect(() => assertInviteUsable({ ...base, usesSpent: 3 })).toThrow('This invite link has no uses left.');
  });

  it('minting is refused on an ended room only', () => {
    expect(() => assertCanMintInvite('active')).not.toThrow();
    expect(() => assertCanMintInvite('ended')).toThrow(InviteGone);
  });
});

describe('inviteExpiresAt', () => {
  it('adds seconds to now', () => {
    expect(inviteExpiresAt(now, 60).toISOString()).toBe('2026-05-01T12:01:00.000Z');
  });
});

describe('inviteBoundsIssues', () => {
  it.each<[number, number, [string, string, Record<string, unknown> | undefined][]]>([
    [60, 1, []],
    [2_592_000, 100, []],
    [59, 1, [['expires_in_seconds', 'greater_than_equal', { ge: 60 }]]],
    [2_592_001, 1, [['expires_in_seconds', 'less_than_equal', { le: 2_592_000 }]]],
    [60, 0, [['max_uses', 'greater_than_equal', { ge: 1 }]]],
    [60, 101, [['max_uses', 'less_than_equal', { le: 100 }]]],
    [60.5, 1, [['expires_in_seconds', 'int_parsing', undefined]]],
    [
      0,
      1000,
      [
        ['expires_in_seconds', 'greater_than_equal', { ge: 60 }],
        ['max_uses', 'less_than_equal', { le: 100 }],
      ],
    ],
  ])('expires %d, uses %d', (expiresInSeconds, maxUses, expected) => {
    expect(inviteBoundsIssues({ expiresInSeconds, maxUses }).map((issue) => [issue.loc[0], issue.type, issue.ctx])).toEqual(expected);
  });
});
