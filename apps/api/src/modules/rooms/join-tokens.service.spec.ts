import { LanguageNotHeld, RoomModeMismatch, type StreamingMode } from '@app/domain';
import type { Actor } from '../../common/auth/actor';
import { ApiError } from '../../common/errors/api-error';
import { DOMAIN_ERROR_STATUS } from '../../common/errors/error-status';
import type { AppConfig } from '../../config/app-config';
import type { DatabaseClient } from '../../database/database.client';
import type { Sql } from '../../database/sql';
import type { JoinGrant, LiveKitGateway } from '../livekit/livekit.gateway';
import { JoinTokensService, LANGUAGE_RESERVATION_SECONDS } from './join-tokens.service';
import type { RoomRow } from './room-rows';
import type { RoomTokensRepository, SharedAdmissionRequest, SharedAdmissionRow, TokenReservation } from './room-tokens.repository';
import type { RoomsRepository } from './rooms.repository';

/** How a member's join token is admitted (shared, then exclusive) and signed, with the repositories and LiveKit replaced. */
describe('JoinTokensService', () => {
  const actor = { organizationId: 'org-1', userId: 'user-1' } as Actor;
  const expiresAt = new Date('2026-01-01T16:00:00Z');

  /** What happened, in order: the exclusive transaction's begin and commit, the repository calls, the signing. */
  let log: string[];
  /** The shared admission's answer: null when no live room has the name. */
  let shared: SharedAdmissionRow | null;
  let sharedRequests: SharedAdmissionRequest[];
  /** The room as the exclusive lock finds it; null when it is no longer live. */
  let locked: RoomRow | null;
  let liveRoomId: string | null;
  let held: string[];
  let modes: StreamingMode[];
  let reservations: TokenReservation[];
  let grants: JoinGrant[];

  const room = (mode: StreamingMode | null): RoomRow => ({
    id: 'room-1',
    organization_id: 'org-1',
    name: 'standup',
    livekit_name: 'org-1.standup',
    status: 'active',
    created_at: new Date(0),
    started_at: new Date(0),
    ended_at: null,
    streaming_mode: mode,
    translator_present: false,
    translator_generation: 0,
    livekit_seen_at: null,
    settled: false,
    total_connection_minutes: 0,
    total_charged_cents: 0,
  });
  const sharedRow = (admitted: boolean, mode: StreamingMode | null = 'mono'): SharedAdmissionRow => ({
    ord: 0,
    room_id: 'room-1',
    room_name: 'standup',
    livekit_name: 'org-1.standup',
    streaming_mode: mode,
    admitted,
  });

  function service(): JoinTokensService {
    const database = {
      transaction: async <T>(work: (tx: Sql) => Promise<T>) => {
        log.push('begin');
        const result = await work({} as Sql);
        log.push('commit');
        return result;
      },
    } as unknown as DatabaseClient;
    const rooms = {
      liveRoomId: async (organizationId: string, name: string) => {
        log.push(`liveRoomId ${organizationId} ${name}`);
        return liveRoomId;
      },
      lockAdmissions: async (organizationId: string, roomId: string) => {
        log.push(`lockAdmissions ${organizationId} ${roomId}`);
        return locked;
      },
      setMode: async (_organizationId: string, _roomId: string, mode: StreamingMode) => {
        log.push('setMode');
        modes.push(mode);
      },
    } as unknown as RoomsRepository;
    const tokens = {
      admitTokenShared: async (request: SharedAdmissionRequest, reserveSeconds: number) => {
        log.push(`shared ${reserveSeconds}`);
        sharedRequests.push(request);
        return shared;
      },
      heldLanguages: async (organizationId: string, roomId: string, exceptIdentity: string) => {
        log.push(`held ${organizationId} ${roomId} ${exceptIdentity}`);
        return held;
      },
      reserveToken: async (_organizationId: string, _roomId: string, token: TokenReservation) => {
        log.push('reserve');
        reservations.push(token);
      },
    } as unknown as RoomTokensRepository;
    const livekit = {
      joinToken: async (grant: JoinGrant) => {
        log.push('sign');
        grants.push(grant);
        return { token: 'jwt', expiresAt };
      },
    } as unknown as LiveKitGateway;
    const config = { livekit: { url: 'wss://livekit.example' } } as unknown as AppConfig;
    return new JoinTokensService(database, rooms, tokens, livekit, config);
  }

  beforeEach(() => {
    log = [];
    shared = sharedRow(false);
    sharedRequests = [];
    locked = room('mono');
    liveRoomId = 'room-1';
    held = [];
    modes = [];
    reservations = [];
    grants = [];
  });

  it('admits a token that changes nothing with the shared admission alone, then signs it', async () => {
    shared = sharedRow(true, 'mono');
    const view = await service().issueForMember(actor, 'standup', { languages: ['en', 'de'], identity: 'alice', name: 'Alice' });
    expect(log).toEqual([`shared ${LANGUAGE_RESERVATION_SECONDS}`, 'sign']);
    expect(sharedRequests).toEqual([
      { organizationId: 'org-1', roomName: 'standup', identity: 'alice', kind: 'member', displayName: 'Alice', languages: ['en', 'de'] },
    ]);
    expect(grants).toEqual([
      {
        livekitRoom: 'org-1.standup',
        identity: 'alice',
        displayName: 'Alice',
        ttlSeconds: 6 * 3600,
        metadata: { languages: ['en', 'de'], kind: 'member', room_id: 'room-1' },
      },
    ]);
    expect(view).toEqual({
      token: 'jwt',
      url: 'wss://livekit.example',
      room: 'standup',
      identity: 'alice',
      languages: ['en', 'de'],
      streaming_mode: 'mono',
      expires_at: expiresAt,
    });
  });

  it('gives a member without an identity a generated one, the same in the admission and the token', async () => {
    shared = sharedRow(true, 'dual');
    const view = await service().issueForMember(actor, 'standup', { languages: ['en'] });
    expect(view.identity).toMatch(/^member-[0-9a-f]{12}$/);
    expect(sharedRequests[0].identity).toBe(view.identity);
    expect(grants[0]).toMatchObject({ identity: view.identity, displayName: null });
  });

  it.each([
    ['the shared admission did not admit it', sharedRow(false)],
    ['the room has no mode yet', sharedRow(true, null)],
  ])('decides a token exclusively, under the admission lock, when %s; signs after the commit', async (_, row) => {
    shared = row;
    locked = room('mono');
    held = ['de'];
    const view = await service().issueForMember(actor, 'standup', { languages: ['en', 'de'], identity: 'alice', name: 'Alice' });
    expect(log).toEqual([
      `shared ${LANGUAGE_RESERVATION_SECONDS}`,
      'begin',
      'liveRoomId org-1 standup',
      'lockAdmissions org-1 room-1',
      'held org-1 room-1 alice',
      'reserve',
      'commit',
      'sign',
    ]);
    expect(reservations).toEqual([
      { identity: 'alice', kind: 'member', displayName: 'Alice', languages: ['en', 'de'], reserveSeconds: LANGUAGE_RESERVATION_SECONDS },
    ]);
    expect(modes).toEqual([]);
    expect(view).toMatchObject({ room: 'standup', identity: 'alice', languages: ['en', 'de'], streaming_mode: 'mono' });
  });

  it.each<[string, string[], StreamingMode]>([
    ['two languages set a mono room', ['en', 'de'], 'mono'],
    ['one language sets a dual room', ['fr'], 'dual'],
  ])('lets the first token set the mode: %s', async (_, languages, mode) => {
    locked = room(null);
    const view = await service().issueForMember(actor, 'standup', { languages, identity: 'alice' });
    expect(modes).toEqual([mode]);
    expect(log.indexOf('setMode')).toBeLessThan(log.indexOf('commit'));
    expect(reservations).toMatchObject([{ languages }]);
    expect(view.streaming_mode).toBe(mode);
  });

  it.each<[string, StreamingMode, string[], string[], typeof LanguageNotHeld | typeof RoomModeMismatch]>([
    ['a third language', 'mono', ['en', 'de'], ['en', 'fr'], LanguageNotHeld],
    ['a third language in a dual room', 'dual', ['en', 'de'], ['fr'], LanguageNotHeld],
    ['one language in a mono room', 'mono', [], ['en'], RoomModeMismatch],
    ['two languages in a dual room', 'dual', [], ['en', 'de'], RoomModeMismatch],
  ])('refuses %s with a 409, reserving and signing nothing', async (_, mode, roomHeld, languages, error) => {
    locked = room(mode);
    held = roomHeld;
    const refused: unknown = await service()
      .issueForMember(actor, 'standup', { languages, identity: 'alice' })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(error);
    expect(DOMAIN_ERROR_STATUS[(refused as LanguageNotHeld | RoomModeMismatch).code]).toBe(409);
    expect(modes).toEqual([]);
    expect(reservations).toEqual([]);
    expect(grants).toEqual([]);
    expect(log).not.toContain('commit');
  });

  it.each<[string, () => void, boolean]>([
    ['no live room has the name', () => (shared = null), false],
    ['the room is gone before the exclusive admission', () => (liveRoomId = null), true],
    ['the room ends before its lock is taken', () => (locked = null), true],
  ])('answers 404 when %s, reserving and signing nothing', async (_, arrange, exclusive) => {
    arrange();
    const issued = service().issueForMember(actor, 'ghost', { languages: ['en'], identity: 'alice' });
    await expect(issued).rejects.toEqual(new ApiError(404, 'No live room named "ghost".'));
    await expect(issued).rejects.toMatchObject({ status: 404 });
    expect(log.includes('begin')).toBe(exclusive);
    expect(reservations).toEqual([]);
    expect(grants).toEqual([]);
  });
});
