import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { DatabaseClient } from '../../src/database/database.client';
import { ConnectionsRepository, type NewConnection } from '../../src/modules/metering/connections.repository';
import { autocommit } from '../support/autocommit';
import { insertOrganization, insertRoom } from '../support/metering-fixtures';
import { closeMediumDatabase, mediumPool, openMediumDatabase } from '../support/medium-database';

/**
 * ConnectionsRepository on the real database, without the application: a participant's connection
 * is opened once whatever the repeats, closed once with the first end's minutes and charge, and no
 * statement reads or changes another organization's connections or rooms.
 */
describe('ConnectionsRepository', () => {
  let database: DatabaseClient;
  let databaseUrl: string;
  let db: DataSource;
  let connections: ConnectionsRepository;

  beforeAll(async () => {
    ({ url: databaseUrl, dataSource: db } = await openMediumDatabase());
    database = new DatabaseClient(mediumPool(db));
    connections = new ConnectionsRepository(database);
  });
  afterAll(async () => {
    await closeMediumDatabase(databaseUrl, db);
  });

  const joinedAt = new Date('2025-03-01T10:00:00.000Z');

  async function roomOfNewOrganization() {
    const org = await insertOrganization(db);
    const room = await insertRoom(db, org, { status: 'active', startedAt: joinedAt });
    const join = (sid: string, more: Partial<NewConnection> = {}): NewConnection => ({
      organizationId: org.organizationId,
      roomId: room.id,
      participantSid: sid,
      identity: `who-${sid}`,
      kind: 'member',
      languages: ['en'],
      joinedAt,
      centsPerMinute: 3,
      ...more,
    });
    return { org, room, join };
  }

  const stored = async (roomId: string) =>
    (await db.query(
      `SELECT participant_sid, kind, languages, left_at, connection_minutes, charged_cents FROM connections WHERE room_id = $1 ORDER BY participant_sid`,
      [roomId],
    )) as { participant_sid: string; kind: string | null; languages: string[] | null; left_at: Date | null }[];

  it('opens one connection per participant sid, however often its join is repeated, and returns only those it opened', async () => {
    const { room, join } = await roomOfNewOrganization();
    const first = await connections.open(
      [join('PA_a'), join('PA_b', { kind: 'translator', languages: null }), join('PA_a')],
      autocommit(database),
    );
    expect(first).toEqual([
      {
        id: expect.any(Number),
        roomId: room.id,
        participantSid: 'PA_a',
        kind: 'member',
        identity: 'who-PA_a',
        languages: ['en'],
        joinedAt,
      },
      {
        id: expect.any(Number),
        roomId: room.id,
        participantSid: 'PA_b',
        kind: 'translator',
        identity: 'who-PA_b',
        languages: null,
        joinedAt,
      },
    ]);
    expect(
      await connections.open([join('PA_a', { identity: 'someone-else' }), join('PA_c', { languages: ['de', 'en'] })], autocommit(database)),
    ).toEqual([expect.objectContaining({ participantSid: 'PA_c' })]);
    expect(await stored(room.id)).toEqual([
      expect.objectContaining({ participant_sid: 'PA_a', kind: 'member', languages: ['en'] }),
      expect.objectContaining({ participant_sid: 'PA_b', kind: 'translator', languages: null }),
      expect.objectContaining({ participant_sid: 'PA_c', kind: 'member', languages: ['de', 'en'] }),
    ]);
  });

  it('finds connections by participant only within their organization, open or closed', async () => {
    const { org, room, join } = await roomOfNewOrganization();
    const other = await roomOfNewOrganization();
    const [a] = await connections.open([join('PA_a')], autocommit(database));
    await connections.open([other.join('PA_a')], autocommit(database));
    await connections.close(
      [{ organizationId: org.organizationId, id: a.id, leftAt: new Date(joinedAt.getTime() + 60_000), minutes: 1, cents: 3 }],
      autocommit(database),
    );
    const key = { organizationId: org.organizationId, roomId: room.id, participantSid: 'PA_a' };
    expect(await connections.byParticipant([key, { ...key, participantSid: 'PA_never' }])).toEqual([
      {
        id: a.id,
        organizationId: org.organizationId,
        roomId: room.id,
        participantSid: 'PA_a',
        joinedAt,
        leftAt: new Date(joinedAt.getTime() + 60_000),
        centsPerMinute: 3,
      },
    ]);
    // Another organization's room, asked for under this organization: nothing.
    expect(await connections.byParticipant([{ ...key, roomId: other.room.id }])).toEqual([]);
  });

  it('closes a connection once: a later close, or one under another organization, changes nothing', async () => {
    const { org, room, join } = await roomOfNewOrganization();
    const other = await insertOrganization(db);
    const [a, b] = await connections.open([join('PA_a'), join('PA_b', { kind: 'translator', languages: null })], autocommit(database));
    const leftAt = new Date(joinedAt.getTime() + 90_000);
    expect(
      await connections.close([{ organizationId: other.organizationId, id: a.id, leftAt, minutes: 2, cents: 6 }], autocommit(database)),
    ).toEqual([]);
    expect(await connections.findOpen(org.organizationId, a.id)).toEqual(expect.objectContaining({ id: a.id }));

    const closed = await connections.close(
      [
        { organizationId: org.organizationId, id: a.id, leftAt, minutes: 2, cents: 6 },
        { organizationId: org.organizationId, id: b.id, leftAt, minutes: 2, cents: 10 },
      ],
      autocommit(database),
    );
    expect(closed.sort((x, y) => x.id - y.id)).toEqual([
      { id: a.id, kind: 'member', identity: 'who-PA_a', languages: ['en'], joinedAt, leftAt },
      { id: b.id, kind: 'translator', identity: 'who-PA_b', languages: null, joinedAt, leftAt },
    ]);
    const again = await connections.close(
      [{ organizationId: org.organizationId, id: a.id, leftAt: new Date(leftAt.getTime() + 600_000), minutes: 12, cents: 36 }],
      autocommit(database),
    );
    expect(again).toEqual([]);
    expect(await stored(room.id)).toEqual([
      expect.objectContaining({ participant_sid: 'PA_a', left_at: leftAt, connection_minutes: 2, charged_cents: 6 }),
      expect.objectContaining({ participant_sid: 'PA_b', left_at: leftAt, connection_minutes: 2, charged_cents: 10 }),
    ]);
    expect(await connections.findOpen(org.organizationId, a.id)).toBeNull();
  });

  it("reads a room's open connections only under its organization", async () => {
    const { org, room, join } = await roomOfNewOrganization();
    const other = await insertOrganization(db);
    const [a, b] = await connections.open([join('PA_a'), join('PA_b')], autocommit(database));
    await connections.close(
      [{ organizationId: org.organizationId, id: a.id, leftAt: joinedAt, minutes: 0, cents: 0 }],
      autocommit(database),
    );
    expect(await connections.openInRoom(org.organizationId, room.id)).toEqual([
      { id: b.id, organizationId: org.organizationId, roomId: room.id, joinedAt, centsPerMinute: 3 },
    ]);
    expect(await connections.openInRoom(other.organizationId, room.id)).toEqual([]);
    expect(await connections.findOpen(other.organizationId, b.id)).toBeNull();
  });

  it('reads the languages connected people hold, by room: the translator and those who left do not count', async () => {
    const one = await roomOfNewOrganization();
    const two = await roomOfNewOrganization();
    const silent = await roomOfNewOrganization();
    const opened = await connections.open(
      [
        one.join('PA_a', { languages: ['en'] }),
        one.join('PA_b', { languages: ['de', 'en'] }),
        one.join('PA_t', { kind: 'translator', languages: ['fr'] }),
        one.join('PA_gone', { languages: ['es'] }),
      ],
      autocommit(database),
    );
    await connections.open([two.join('PA_x', { languages: ['it'] })], autocommit(database));
    await connections.open([silent.join('PA_s', { languages: null })], autocommit(database));
    const gone = opened.find((c) => c.participantSid === 'PA_gone')!;
    await connections.close(
      [{ organizationId: one.org.organizationId, id: gone.id, leftAt: joinedAt, minutes: 0, cents: 0 }],
      autocommit(database),
    );
    const held = await connections.connectedLanguages([
      { organizationId: one.org.organizationId, id: one.room.id },
      { organizationId: two.org.organizationId, id: two.room.id },
      { organizationId: silent.org.organizationId, id: silent.room.id },
      // another organization's room, asked for under the first organization
      { organizationId: one.org.organizationId, id: two.room.id },
    ]);
    expect([...held.entries()].sort()).toEqual(
      [
        [one.room.id, ['de', 'en']],
        [two.room.id, ['it']],
      ].sort(),
    );
    expect(await connections.connectedLanguages([{ organizationId: one.org.organizationId, id: two.room.id }])).toEqual(new Map());
  });

  it("moves an end earlier from the figures of the row it locks, not its snapshot's, without the room's lock", async () => {
    const { org, join } = await roomOfNewOrganization();
    const [a] = await connections.open([join('PA_a')], autocommit(database));
    const at = (minutes: number) => new Date(joinedAt.getTime() + minutes * 60_000);
    const end = (minutes: number) => ({ organizationId: org.organizationId, id: a.id, leftAt: at(minutes), minutes, cents: 3 * minutes });
    await connections.close([end(10)], autocommit(database));

    // The first move holds the row, uncommitted, while a second one, earlier still, starts and waits for it.
    let commitFirst = () => {};
    let firstMoved = () => {};
    const moved = new Promise<void>((resolve) => (firstMoved = resolve));
    const first = database.transaction(async (tx) => {
      const corrected = await connections.moveEndsEarlier([end(6)], tx);
      firstMoved();
      await new Promise<void>((resolve) => (commitFirst = resolve));
      return corrected;
    });
    await moved;
    const second = database.transaction((tx) => connections.moveEndsEarlier([end(3)], tx));
    // Watched from a connection of its own: the two transactions hold both of the pool's.
    const watcher = new Client({ connectionString: databaseUrl });
    await watcher.connect();
    const waiting = `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`;
    while ((await watcher.query(waiting)).rowCount === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    await watcher.end();
    commitFirst();

    expect((await first).map((c) => [c.previousMinutes, c.previousCents, c.minutes, c.cents])).toEqual([[10, 30, 6, 18]]);
    // What the first move left, not the 10 minutes the second statement's snapshot saw: the corrections add up.
    expect((await second).map((c) => [c.previousMinutes, c.previousCents, c.minutes, c.cents])).toEqual([[6, 18, 3, 9]]);
  });
});
