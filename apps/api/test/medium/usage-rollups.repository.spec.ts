import type { DataSource } from 'typeorm';
import { DatabaseClient } from '../../src/database/database.client';
import { UsageRollupsRepository } from '../../src/modules/metering/usage-rollups.repository';
import { autocommit } from '../support/autocommit';
import { insertOrganization, insertRoom } from '../support/metering-fixtures';
import { closeMediumDatabase, mediumPool, openMediumDatabase } from '../support/medium-database';

/**
 * UsageRollupsRepository on the real database, without the application: writes to a slot add up,
 * the usage version moves by what was written, a room counts its people but not the translator, and
 * nothing reads or changes another organization's rows.
 */
describe('UsageRollupsRepository', () => {
  let databaseUrl: string;
  let db: DataSource;
  let rollups: UsageRollupsRepository;
  let database: DatabaseClient;

  beforeAll(async () => {
    ({ url: databaseUrl, dataSource: db } = await openMediumDatabase());
    database = new DatabaseClient(mediumPool(db));
    rollups = new UsageRollupsRepository(database);
  });
  afterAll(async () => {
    await closeMediumDatabase(databaseUrl, db);
  });

  const slots = async (organizationId: string) =>
    (await db.query(`SELECT slot, minutes, sessions, participants FROM usage_slots WHERE organization_id = $1 ORDER BY slot`, [
      organizationId,
    ])) as { slot: Date; minutes: number; sessions: number; participants: number }[];

  const version = async (organizationId: string) =>
    ((await db.query(`SELECT version FROM usage_versions WHERE organization_id = $1`, [organizationId])) as { version: number }[])[0]
      ?.version;

  it("sums the writes to a slot, negative ones included, each organization's apart", async () => {
    const [org, other] = [await insertOrganization(db), await insertOrganization(db)];
    const slot = Date.parse('2025-03-01T10:15:00.000Z') / 1000;
    await rollups.addToSlots(
      org.organizationId,
      [{ slotSeconds: slot, minutes: 5, sessions: 1, participants: 2 }],
      1,
      autocommit(database),
    );
    await database.transaction(async (tx) => {
      await rollups.addToSlots(
        org.organizationId,
        [
          { slotSeconds: slot, minutes: 7, sessions: 0, participants: 1 },
          { slotSeconds: slot + 900, minutes: 1, sessions: 1, participants: 1 },
        ],
        2,
        tx,
      );
    });
    await rollups.addToSlots(
      org.organizationId,
      [{ slotSeconds: slot, minutes: -2, sessions: -1, participants: -1 }],
      1,
      autocommit(database),
    );
    await rollups.addToSlots(
      other.organizationId,
      [{ slotSeconds: slot, minutes: 100, sessions: 10, participants: 10 }],
      1,
      autocommit(database),
    );
    expect(await slots(org.organizationId)).toEqual([
      { slot: new Date('2025-03-01T10:15:00.000Z'), minutes: 10, sessions: 0, participants: 2 },
      { slot: new Date('2025-03-01T10:30:00.000Z'), minutes: 1, sessions: 1, participants: 1 },
    ]);
    expect(await slots(other.organizationId)).toEqual([
      { slot: new Date('2025-03-01T10:15:00.000Z'), minutes: 100, sessions: 10, participants: 10 },
    ]);
    expect([await version(org.organizationId), await version(other.organizationId)]).toEqual([4, 1]);
  });

  it('moves the usage version by the writes, from nothing, for that organization only, even when no slot changes', async () => {
    const [org, other] = [await insertOrganization(db), await insertOrganization(db)];
    await rollups.addToSlots(org.organizationId, [], 3, autocommit(database));
    await rollups.addToSlots(org.organizationId, [], 1, autocommit(database));
    expect(await version(org.organizationId)).toBe(4);
    expect(await slots(org.organizationId)).toEqual([]);
    expect(await version(other.organizationId)).toBeUndefined();
  });

  it('rolls a failed transaction back: its slot writes and version bump are gone', async () => {
    const org = await insertOrganization(db);
    const slot = Date.parse('2025-03-01T11:00:00.000Z') / 1000;
    await expect(
      database.transaction(async (tx) => {
        await rollups.addToSlots(org.organizationId, [{ slotSeconds: slot, minutes: 5, sessions: 1, participants: 1 }], 1, tx);
        throw new Error('the batch failed');
      }),
    ).rejects.toThrow('the batch failed');
    expect(await slots(org.organizationId)).toEqual([]);
    expect(await version(org.organizationId)).toBeUndefined();
  });

  it("counts a room's minutes and its people (not the translator), only under its organization", async () => {
    const [org, other] = [await insertOrganization(db), await insertOrganization(db)];
    const startedAt = new Date('2025-03-01T10:00:00.000Z');
    const room = await insertRoom(db, org, { status: 'active', startedAt });
    const empty = await insertRoom(db, org);
    await db.query(`UPDATE rooms SET total_connection_minutes = 42 WHERE id = $1`, [room.id]);
    for (const [sid, kind] of [
      ['PA_a', 'member'],
      ['PA_b', 'guest'],
      ['PA_c', null],
      ['PA_t', 'translator'],
    ] as const) {
      await db.query(
        `INSERT INTO connections (room_id, organization_id, participant_sid, identity, kind, joined_at, cents_per_minute)
         VALUES ($1, $2, $3, $3, $4, $5, 3)`,
        [room.id, org.organizationId, sid, kind, startedAt],
      );
    }
    const counted = await rollups.countedRooms([
      { organizationId: org.organizationId, id: room.id },
      { organizationId: org.organizationId, id: empty.id },
      { organizationId: other.organizationId, id: room.id },
    ]);
    expect(counted.sort((a, b) => (a.id === room.id ? -1 : b.id === room.id ? 1 : 0))).toEqual([
      { id: room.id, organizationId: org.organizationId, startedAt, minutes: 42, participants: 3 },
      { id: empty.id, organizationId: org.organizationId, startedAt: null, minutes: 0, participants: 0 },
    ]);
  });
});
