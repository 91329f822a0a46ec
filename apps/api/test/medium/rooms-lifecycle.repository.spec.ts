import type { DataSource } from 'typeorm';
import { DatabaseClient } from '../../src/database/database.client';
import { RoomTokensRepository } from '../../src/modules/rooms/room-tokens.repository';
import { RoomsRepository } from '../../src/modules/rooms/rooms.repository';
import { autocommit } from '../support/autocommit';
import { insertOrganization, insertRoom } from '../support/metering-fixtures';
import { closeMediumDatabase, mediumPool, openMediumDatabase } from '../support/medium-database';

/**
 * The lifecycle statements of RoomsRepository (those LiveKit events and ending a room run) on the
 * real database, without the application: locks that hold, an end never before the room started or
 * was created, translator presence flipping with its generation, and another organization's rooms
 * never changed.
 */
describe('RoomsRepository, lifecycle', () => {
  let databaseUrl: string;
  let db: DataSource;
  let database: DatabaseClient;
  let rooms: RoomsRepository;
  let tokens: RoomTokensRepository;

  beforeAll(async () => {
    ({ url: databaseUrl, dataSource: db } = await openMediumDatabase());
    database = new DatabaseClient(mediumPool(db));
    rooms = new RoomsRepository(database);
    tokens = new RoomTokensRepository(database);
  });
  afterAll(async () => {
    await closeMediumDatabase(databaseUrl, db);
  });

  const row = async (roomId: string) =>
    (
      (await db.query(`SELECT status, started_at, ended_at, translator_present, translator_generation FROM rooms WHERE id = $1`, [
        roomId,
      ])) as {
        status: string;
        started_at: Date | null;
        ended_at: Date | null;
        translator_present: boolean;
        translator_generation: number;
      }[]
    )[0];

  /** Whether another session can take the room's row lock now. */
  const lockable = async (roomId: string) =>
    db.query(`SELECT 1 FROM rooms WHERE id = $1 FOR UPDATE NOWAIT`, [roomId]).then(
      () => true,
      () => false,
    );

  it('locks rooms by LiveKit name, in id order, leaving unknown names out; the locks hold until commit', async () => {
    const org = await insertOrganization(db);
    const other = await insertOrganization(db);
    const a = await insertRoom(db, org);
    const b = await insertRoom(db, other, { status: 'active', startedAt: new Date('2025-03-01T10:00:00.000Z') });
    await database.transaction(async (tx) => {
      const locked = await rooms.lockByLiveKitNames([b.livekitName, 'unknown.room', a.livekitName], tx);
      expect(locked.map((room) => room.id)).toEqual([a.id, b.id].sort());
      expect(locked.find((room) => room.id === b.id)).toEqual({
        id: b.id,
        organization_id: other.organizationId,
        name: expect.any(String),
        livekit_name: b.livekitName,
        status: 'active',
        created_at: expect.any(Date),
        started_at: new Date('2025-03-01T10:00:00.000Z'),
        ended_at: null,
        streaming_mode: null,
        translator_present: false,
        translator_generation: 0,
        livekit_seen_at: null,
        settled: false,
        total_connection_minutes: 0,
        total_charged_cents: 0,
      });
      expect(await lockable(a.id)).toBe(false);
      expect(await lockable(b.id)).toBe(false);
    });
    expect(await lockable(a.id)).toBe(true);
  });

  it("locks a room by id only under its organization's id", async () => {
    const [org, other] = [await insertOrganization(db), await insertOrganization(db)];
    const room = await insertRoom(db, org);
    await database.transaction(async (tx) => {
      expect(await rooms.lockForLifecycle(other.organizationId, room.id, tx)).toBeNull();
      expect(await lockable(room.id)).toBe(true);
      expect(await rooms.lockForLifecycle(org.organizationId, room.id, tx)).toEqual(
        expect.objectContaining({ id: room.id, status: 'created' }),
      );
      expect(await lockable(room.id)).toBe(false);
    });
  });

  it('ends a room at the latest of the given time, its start and its creation', async () => {
    const org = await insertOrganization(db);
    const createdAt = new Date('2025-03-01T09:00:00.000Z');
    const startedAt = new Date('2025-03-01T10:00:00.000Z');
    const cases = [
      { at: new Date('2025-03-01T08:00:00.000Z'), startedAt: null, ends: createdAt },
      { at: new Date('2025-03-01T09:30:00.000Z'), startedAt, ends: startedAt },
      { at: new Date('2025-03-01T11:00:00.000Z'), startedAt, ends: new Date('2025-03-01T11:00:00.000Z') },
    ];
    for (const { at, startedAt: started, ends } of cases) {
      const room = await insertRoom(db, org, { status: started ? 'active' : 'created', startedAt: started, createdAt });
      expect(await rooms.end(org.organizationId, room.id, at, 0, autocommit(database))).toEqual(ends);
      expect(await row(room.id)).toEqual(expect.objectContaining({ status: 'ended', ended_at: ends }));
    }
  });

  it("does not end another organization's room", async () => {
    const [org, other] = [await insertOrganization(db), await insertOrganization(db)];
    const room = await insertRoom(db, org, { status: 'active', startedAt: new Date('2025-03-01T10:00:00.000Z') });
    expect(await rooms.end(other.organizationId, room.id, new Date(), 0, autocommit(database))).toBeNull();
    expect(await row(room.id)).toEqual(expect.objectContaining({ status: 'active', ended_at: null }));
  });

  it('flips translator presence, each flip a new generation, only under the organization', async () => {
    const [org, other] = [await insertOrganization(db), await insertOrganization(db)];
    const room = await insertRoom(db, org, { status: 'active', startedAt: new Date() });
    const untouched = await insertRoom(db, org, { status: 'active', startedAt: new Date() });
    await rooms.flipTranslatorPresence([{ organizationId: org.organizationId, id: room.id }], autocommit(database));
    expect(await row(room.id)).toEqual(expect.objectContaining({ translator_present: true, translator_generation: 1 }));
    await rooms.flipTranslatorPresence([{ organizationId: other.organizationId, id: room.id }], autocommit(database));
    expect(await row(room.id)).toEqual(expect.objectContaining({ translator_present: true, translator_generation: 1 }));
    await rooms.flipTranslatorPresence([{ organizationId: org.organizationId, id: room.id }], autocommit(database));
    expect(await row(room.id)).toEqual(expect.objectContaining({ translator_present: false, translator_generation: 2 }));
    expect(await row(untouched.id)).toEqual(expect.objectContaining({ translator_present: false, translator_generation: 0 }));
  });

  it('activates rooms: those that start become active, every one takes its new start; never under another organization', async () => {
    const [org, other] = [await insertOrganization(db), await insertOrganization(db)];
    const created = await insertRoom(db, org);
    const active = await insertRoom(db, org, { status: 'active', startedAt: new Date('2025-03-01T10:00:00.000Z') });
    const foreign = await insertRoom(db, other);
    const earlier = new Date('2025-03-01T09:59:00.000Z');
    await rooms.activate(
      [
        { organizationId: org.organizationId, roomId: created.id, starts: true, startedAt: earlier },
        { organizationId: org.organizationId, roomId: active.id, starts: false, startedAt: earlier },
        { organizationId: org.organizationId, roomId: foreign.id, starts: true, startedAt: earlier },
      ],
      autocommit(database),
    );
    expect(await row(created.id)).toEqual(expect.objectContaining({ status: 'active', started_at: earlier }));
    expect(await row(active.id)).toEqual(expect.objectContaining({ status: 'active', started_at: earlier }));
    expect(await row(foreign.id)).toEqual(expect.objectContaining({ status: 'created', started_at: null }));
  });

  it("ends the reservations of connected participants' tokens, returning their kind and languages; never another organization's", async () => {
    const [org, other] = [await insertOrganization(db), await insertOrganization(db)];
    const room = await insertRoom(db, org, { status: 'active', startedAt: new Date() });
    const foreign = await insertRoom(db, other, { status: 'active', startedAt: new Date() });
    for (const [roomId, identity, kind, languages] of [
      [room.id, 'ann', 'member', ['en']],
      [room.id, 'gus', 'guest', ['de', 'en']],
      [foreign.id, 'ann', 'member', ['fr']],
    ] as const) {
      await db.query(
        `INSERT INTO room_tokens (room_id, identity, kind, languages, reserved_until) VALUES ($1, $2, $3, $4, clock_timestamp() + interval '2 minutes')`,
        [roomId, identity, kind, languages],
      );
    }
    const released = await tokens.releaseReservations(
      [
        { organizationId: org.organizationId, roomId: room.id, identity: 'ann' },
        { organizationId: org.organizationId, roomId: room.id, identity: 'gus' },
        { organizationId: org.organizationId, roomId: room.id, identity: 'nobody' },
        { organizationId: org.organizationId, roomId: foreign.id, identity: 'ann' },
      ],
      autocommit(database),
    );
    expect(released.sort((a, b) => a.identity.localeCompare(b.identity))).toEqual([
      { roomId: room.id, identity: 'ann', kind: 'member', languages: ['en'] },
      { roomId: room.id, identity: 'gus', kind: 'guest', languages: ['de', 'en'] },
    ]);
    const reservations = (await db.query(`SELECT room_id, identity, reserved_until FROM room_tokens WHERE room_id = ANY($1)`, [
      [room.id, foreign.id],
    ])) as { room_id: string; identity: string; reserved_until: Date | null }[];
    expect(reservations.filter((r) => r.reserved_until !== null)).toEqual([
      expect.objectContaining({ room_id: foreign.id, identity: 'ann' }),
    ]);
  });

  it("adds to rooms' totals only under their organization, as numbers", async () => {
    const org = await insertOrganization(db);
    const room = await insertRoom(db, org, { status: 'active', startedAt: new Date() });
    const other = await insertOrganization(db);
    await rooms.addToTotals(
      [
        { organizationId: org.organizationId, roomId: room.id, minutes: 2, cents: 6 },
        { organizationId: other.organizationId, roomId: room.id, minutes: 100, cents: 300 },
      ],
      autocommit(database),
    );
    await rooms.addToTotals(
      [{ organizationId: org.organizationId, roomId: room.id, minutes: 3, cents: 9_000_000_000 }],
      autocommit(database),
    );
    const [totals] = (await db.query(`SELECT total_connection_minutes, total_charged_cents FROM rooms WHERE id = $1`, [room.id])) as {
      total_connection_minutes: number;
      total_charged_cents: number;
    }[];
    expect(totals).toEqual({ total_connection_minutes: 5, total_charged_cents: 9_000_000_006 });
  });

  it("shows a room as customer events carry it only with its own organization's key, participants in the order they joined", async () => {
    const [mine, theirs] = [(await insertOrganization(db)).organizationId, (await insertOrganization(db)).organizationId];
    const [{ id: user }] = (await db.query(`INSERT INTO users (organization_id, email) VALUES ($1, 'host@example.com') RETURNING id`, [
      mine,
    ])) as { id: string }[];
    const [{ id: room }] = (await db.query(
      `INSERT INTO rooms (organization_id, name, livekit_name, created_by_user_id) VALUES ($1, 'standup', 'lk-standup', $2) RETURNING id`,
      [mine, user],
    )) as { id: string }[];
    await db.query(
      `INSERT INTO connections (room_id, organization_id, participant_sid, identity, kind, languages, joined_at, cents_per_minute)
       VALUES ($1, $2, 'PA_b', 'bob', 'member', '{en}', now() - interval '1 minute', 3),
              ($1, $2, 'PA_a', 'alice', 'guest', '{fr}', now() - interval '2 minutes', 3)`,
      [room, mine],
    );
    expect(await rooms.views([{ roomId: room, organizationId: theirs }])).toEqual(new Map());
    const bodies = await rooms.views([{ roomId: room, organizationId: mine }]);
    const body = bodies.get(room)!;
    expect(body).toMatchObject({ id: room, name: 'standup', status: 'created', created_by: 'host@example.com', total_charged_cents: 0 });
    expect(body.participants.map((p) => p.participant_identity)).toEqual(['alice', 'bob']);
    expect(body.participants[0]).not.toHaveProperty('room_id');
  });
});
