import { autocommit } from '../support/autocommit';
import { rawRows } from '../support/raw-statements';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { DatabaseClient } from '../../src/database/database.client';
import { RoomTokensRepository } from '../../src/modules/rooms/room-tokens.repository';
import { RoomsRepository, type NewRoom } from '../../src/modules/rooms/rooms.repository';
import { closeMediumDatabase, mediumPool, openMediumDatabase } from '../support/medium-database';

/** Rooms, their join tokens and held languages on the real database, each read scoped to its organization. */
describe('RoomsRepository', () => {
  let databaseUrl: string;
  let dataSource: DataSource;
  let database: DatabaseClient;
  let rooms: RoomsRepository;
  let tokens: RoomTokensRepository;

  beforeAll(async () => {
    ({ url: databaseUrl, dataSource } = await openMediumDatabase());
    database = new DatabaseClient(mediumPool(dataSource));
    rooms = new RoomsRepository(database);
    tokens = new RoomTokensRepository(database);
  });
  afterAll(async () => {
    await closeMediumDatabase(databaseUrl, dataSource);
  });

  interface Org {
    id: string;
    userId: string;
    email: string;
  }

  async function organization(): Promise<Org> {
    const [{ id }] = await rawRows<{ id: string }>(database, `INSERT INTO organizations (name) VALUES ('rooms') RETURNING id`);
    const email = `owner-${id.slice(0, 8)}@example.com`;
    const [{ id: userId }] = await rawRows<{ id: string }>(
      database,
      `INSERT INTO users (organization_id, email) VALUES ($1, $2) RETURNING id`,
      [id, email],
    );
    return { id, userId, email };
  }

  function newRoom(org: Org, name: string, extra: Partial<NewRoom> = {}): NewRoom {
    const id = randomUUID();
    return {
      id,
      organizationId: org.id,
      name,
      livekitName: `${org.id}.${id}`,
      sid: `RM_${id.slice(0, 8)}`,
      streamingMode: null,
      createdByUserId: org.userId,
      ...extra,
    };
  }

  async function created(org: Org, name: string, extra: Partial<NewRoom> = {}): Promise<NewRoom> {
    const room = newRoom(org, name, extra);
    expect(await rooms.insert([room], autocommit(database))).toEqual(new Set([room.id]));
    return room;
  }

  const end = (roomId: string) =>
    rawRows(database, `UPDATE rooms SET status = 'ended', ended_at = clock_timestamp() WHERE id = $1`, [roomId]);

  it('a name is taken among the live rooms of its organization only; ending the room frees it', async () => {
    const [a, b] = [await organization(), await organization()];
    const first = await created(a, 'daily');
    expect(await rooms.liveNameTaken(a.id, 'daily')).toBe(true);
    expect(await rooms.liveNameTaken(b.id, 'daily')).toBe(false);
    expect(await rooms.insert([newRoom(a, 'daily')], autocommit(database))).toEqual(new Set());
    await created(b, 'daily');

    await end(first.id);
    expect(await rooms.liveNameTaken(a.id, 'daily')).toBe(false);
    await created(a, 'daily');
    expect(await rooms.insert([newRoom(a, 'daily')], autocommit(database))).toEqual(new Set());
    const [{ count }] = await rawRows<{ count: number }>(database, `SELECT count(*)::int AS count FROM rooms WHERE organization_id = $1`, [
      a.id,
    ]);
    expect(count).toBe(2);
  });

  it('inserts rooms created together in one statement: of two with one name the first, none whose name a live room holds', async () => {
    const [a, b] = [await organization(), await organization()];
    await created(a, 'taken');
    const batch = [
      newRoom(a, 'one', { sid: null, streamingMode: 'mono' }),
      newRoom(a, 'taken'),
      newRoom(b, 'one'),
      newRoom(a, 'one'),
      newRoom(a, 'two', { streamingMode: 'dual' }),
    ];
    expect(await rooms.insert(batch, autocommit(database))).toEqual(new Set([batch[0].id, batch[2].id, batch[4].id]));
    const stored = await rawRows<{ id: string; name: string; sid: string | null; streaming_mode: string | null; livekit_name: string }>(
      database,
      `SELECT id, name, sid, streaming_mode, livekit_name FROM rooms WHERE id = ANY($1::uuid[]) ORDER BY created_at, id`,
      [batch.map((room) => room.id)],
    );
    expect(stored).toEqual(
      [batch[0], batch[2], batch[4]].map((room) => ({
        id: room.id,
        name: room.name,
        sid: room.sid,
        streaming_mode: room.streamingMode,
        livekit_name: room.livekitName,
      })),
    );
  });

  it('reads a room and its participants only for its own organization, with typed values', async () => {
    const [a, b] = [await organization(), await organization()];
    const room = await created(a, 'standup', { streamingMode: 'dual' });
    await rawRows(
      database,
      `INSERT INTO connections (room_id, organization_id, participant_sid, identity, kind, languages, joined_at, left_at, cents_per_minute, connection_minutes, charged_cents)
       VALUES ($1, $2, 'PA_2', 'bob', 'guest', '{de}', '2026-03-02T09:00:05.123Z', NULL, 3, NULL, NULL),
              ($1, $2, 'PA_1', 'ann', 'member', '{en}', '2026-03-02T09:00:01.000Z', '2026-03-02T09:03:00.000Z', 3, 3, 9)`,
      [room.id, a.id],
    );

    expect(await rooms.view(b.id, room.id)).toBeNull();
    expect(await rooms.participants(b.id, room.id)).toEqual([]);
    expect(await rooms.endState(b.id, room.id)).toBeNull();

    expect(await rooms.view(a.id, room.id)).toEqual({
      id: room.id,
      name: 'standup',
      sid: room.sid,
      status: 'created',
      streaming_mode: 'dual',
      started_at: null,
      ended_at: null,
      total_connection_minutes: 0,
      total_charged_cents: 0,
      created_at: expect.any(Date),
      created_by: a.email,
    });
    expect(await rooms.participants(a.id, room.id)).toEqual([
      {
        id: expect.any(Number),
        participant_identity: 'ann',
        participant_kind: 'member',
        languages: ['en'],
        joined_at: new Date('2026-03-02T09:00:01.000Z'),
        left_at: new Date('2026-03-02T09:03:00.000Z'),
        connection_minutes: 3,
        charged_cents: 9,
      },
      {
        id: expect.any(Number),
        participant_identity: 'bob',
        participant_kind: 'guest',
        languages: ['de'],
        joined_at: new Date('2026-03-02T09:00:05.123Z'),
        left_at: null,
        connection_minutes: null,
        charged_cents: null,
      },
    ]);
    expect(await rooms.endState(a.id, room.id)).toEqual({ livekit_name: room.livekitName, status: 'created' });
  });

  it("lists the organization's rooms newest first at the millisecond shown, ties by id, limit and offset", async () => {
    const [a, b] = [await organization(), await organization()];
    const made = [];
    for (const name of ['r1', 'r2', 'r3', 'r4']) made.push(await created(a, name));
    await created(b, 'elsewhere');
    // r1 newest; the other three within one millisecond (shown alike), the microseconds ordered
    // against their ids: the smallest id is the latest by microseconds.
    const sameMillisecond = made
      .slice(1)
      .map((room) => room.id)
      .sort();
    await rawRows(
      database,
      `UPDATE rooms SET created_at = v.at FROM (VALUES ($1::uuid, '2026-03-02T10:00:00.000001Z'::timestamptz),
         ($2::uuid, '2026-03-02T09:00:00.123900Z'), ($3::uuid, '2026-03-02T09:00:00.123500Z'), ($4::uuid, '2026-03-02T09:00:00.123100Z')) AS v(id, at)
        WHERE rooms.id = v.id`,
      [made[0].id, ...sameMillisecond],
    );
    sameMillisecond.reverse(); // shown alike, so ordered by id, newest first

    const page = await rooms.page(a.id, 10, 0);
    expect(page.map((room) => room.id)).toEqual([made[0].id, ...sameMillisecond]);
    expect(page.map((room) => room.created_at.toISOString())).toEqual([
      '2026-03-02T10:00:00.000Z',
      '2026-03-02T09:00:00.123Z',
      '2026-03-02T09:00:00.123Z',
      '2026-03-02T09:00:00.123Z',
    ]);
    expect((await rooms.page(a.id, 2, 1)).map((room) => room.id)).toEqual(sameMillisecond.slice(0, 2));
    expect(await rooms.page(a.id, 2, 9_007_199_254_740_991)).toEqual([]);
    expect((await rooms.page(b.id, 10, 0)).map((room) => room.name)).toEqual(['elsewhere']);
  });

  it('tokens: a reservation holds its languages for others until it lapses, a re-issue replaces it, all within the organization', async () => {
    const [a, b] = [await organization(), await organization()];
    const room = await created(a, 'tokens');
    const token = { kind: 'member' as const, displayName: null, reserveSeconds: 120 };
    await tokens.reserveToken(a.id, room.id, { ...token, identity: 'ann', languages: ['en'] }, autocommit(database));
    await tokens.reserveToken(a.id, room.id, { ...token, identity: 'bob', languages: ['de', 'en'] }, autocommit(database));
    expect(await tokens.heldLanguages(a.id, room.id, null)).toEqual(['de', 'en']);
    expect(await tokens.heldLanguages(a.id, room.id, 'bob')).toEqual(['en']);
    expect(await tokens.heldLanguages(b.id, room.id, null)).toEqual([]);

    // re-issued to bob with French; ann's reservation lapses
    await tokens.reserveToken(
      a.id,
      room.id,
      { ...token, identity: 'bob', kind: 'guest', displayName: 'Bob', languages: ['fr'] },
      autocommit(database),
    );
    await rawRows(database, `UPDATE room_tokens SET reserved_until = clock_timestamp() - interval '1 second' WHERE identity = 'ann'`);
    expect(await tokens.heldLanguages(a.id, room.id, null)).toEqual(['fr']);
    const rows = await rawRows<{ identity: string; kind: string; display_name: string | null; languages: string[] }>(
      database,
      `SELECT identity, kind, display_name, languages FROM room_tokens WHERE room_id = $1 ORDER BY identity`,
      [room.id],
    );
    expect(rows).toEqual([
      { identity: 'ann', kind: 'member', display_name: null, languages: ['en'] },
      { identity: 'bob', kind: 'guest', display_name: 'Bob', languages: ['fr'] },
    ]);

    // another organization cannot issue a token of this room
    await tokens.reserveToken(b.id, room.id, { ...token, identity: 'mallory', languages: ['es'] }, autocommit(database));
    expect(await tokens.heldLanguages(a.id, room.id, null)).toEqual(['fr']);
  });

  it('the admission lock reads the live room of the organization; the mode is set there only', async () => {
    const [a, b] = [await organization(), await organization()];
    const room = await created(a, 'locked');
    const ended = await created(a, 'over');
    await end(ended.id);
    const locked = await database.transaction(async (tx) => ({
      own: await rooms.lockAdmissions(a.id, room.id, tx),
      foreign: await rooms.lockAdmissions(b.id, room.id, tx),
      ended: await rooms.lockAdmissions(a.id, ended.id, tx),
    }));
    expect(locked).toEqual({
      own: {
        id: room.id,
        organization_id: a.id,
        name: 'locked',
        livekit_name: room.livekitName,
        status: 'created',
        created_at: expect.any(Date),
        started_at: null,
        ended_at: null,
        streaming_mode: null,
        translator_present: false,
        translator_generation: 0,
        livekit_seen_at: null,
        settled: false,
        total_connection_minutes: 0,
        total_charged_cents: 0,
      },
      foreign: null,
      ended: null,
    });
    expect(await rooms.liveRoomId(a.id, 'locked')).toBe(room.id);
    expect(await rooms.liveRoomId(b.id, 'locked')).toBeNull();
    expect(await rooms.liveRoomId(a.id, 'over')).toBeNull();

    await rooms.setMode(b.id, room.id, 'mono', autocommit(database));
    expect((await rooms.view(a.id, room.id))?.streaming_mode).toBeNull();
    await rooms.setMode(a.id, room.id, 'dual', autocommit(database));
    expect((await rooms.view(a.id, room.id))?.streaming_mode).toBe('dual');
  });

  it('shared admissions: one answer per request whose room is live and its own organization’s, by index', async () => {
    const [a, b] = [await organization(), await organization()];
    const room = await created(a, 'shared', { streamingMode: 'dual' });
    await created(a, 'unset');
    await end((await created(a, 'gone', { streamingMode: 'dual' })).id);
    await tokens.reserveToken(
      a.id,
      room.id,
      {
        identity: 'host',
        kind: 'member',
        displayName: null,
        languages: ['en'],
        reserveSeconds: 120,
      },
      autocommit(database),
    );
    const ask = (organizationId: string, roomName: string, identity: string, languages: string[]) => ({
      organizationId,
      roomName,
      identity,
      kind: 'guest' as const,
      displayName: null,
      languages,
    });
    const answers = await tokens.admitShared(
      [
        ask(a.id, 'shared', 'listener', ['en']),
        ask(b.id, 'shared', 'stranger', ['en']),
        ask(a.id, 'gone', 'late', ['en']),
        ask(a.id, 'shared', 'newcomer', ['de']),
        ask(a.id, 'unset', 'first', ['en']),
      ],
      120,
      autocommit(database),
    );
    expect([...answers.keys()].sort()).toEqual([0, 3, 4]);
    expect(answers.get(0)).toEqual({
      ord: 0,
      room_id: room.id,
      room_name: 'shared',
      livekit_name: room.livekitName,
      streaming_mode: 'dual',
      admitted: true,
    });
    expect(answers.get(3)).toMatchObject({ room_id: room.id, admitted: false });
    expect(answers.get(4)).toMatchObject({ room_name: 'unset', streaming_mode: null, admitted: false });
    expect(await tokens.heldLanguages(a.id, room.id, 'host')).toEqual(['en']); // the listener's reservation
  });
});
