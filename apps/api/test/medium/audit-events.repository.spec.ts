import type { DataSource } from 'typeorm';
import { DatabaseClient } from '../../src/database/database.client';
import { AuditEventsRepository, type NewAuditEvent } from '../../src/modules/audit/audit-events.repository';
import { autocommit } from '../support/autocommit';
import { closeMediumDatabase, mediumPool, openMediumDatabase } from '../support/medium-database';

const NO_FILTER = { action: null, actorUserId: null, targetId: null, since: null, until: null };

/** `audit_events` on the real database: appended, read per organization newest first, deleted only by retention. */
describe('AuditEventsRepository', () => {
  let databaseUrl: string;
  let db: DataSource;
  let database: DatabaseClient;
  let events: AuditEventsRepository;

  beforeAll(async () => {
    ({ url: databaseUrl, dataSource: db } = await openMediumDatabase());
    database = new DatabaseClient(mediumPool(db));
    events = new AuditEventsRepository(database);
  });
  afterAll(async () => {
    await closeMediumDatabase(databaseUrl, db);
  });

  const newOrganization = async (): Promise<string> => {
    const [{ id }] = (await db.query(`INSERT INTO organizations (name) VALUES ('audit') RETURNING id`)) as { id: string }[];
    return id;
  };
  const event = (organizationId: string, more: Partial<NewAuditEvent> = {}): NewAuditEvent => ({
    organizationId,
    action: 'room.created',
    actorType: 'operator',
    actorUserId: null,
    actorEmail: null,
    apiKeyId: null,
    targetType: 'room',
    targetId: 'room-1',
    requestId: null,
    ip: null,
    details: {},
    ...more,
  });

  it('reads back an organization’s events newest first, those written in one transaction last first', async () => {
    const org = await newOrganization();
    const other = await newOrganization();
    await database.transaction(async (tx) => {
      await events.insert([event(org, { targetId: 'first', details: { n: 1 } })], tx);
      await events.insert([event(org, { targetId: 'second', action: 'invites.revoked' })], tx);
    });
    await events.insert([event(other, { targetId: 'elsewhere' })], autocommit(database));
    const page = await events.page(org, NO_FILTER, 10, 0);
    expect(page.map((row) => [row.target_id, row.action, row.details])).toEqual([
      ['second', 'invites.revoked', {}],
      ['first', 'room.created', { n: 1 }],
    ]);
    expect((await events.page(org, { ...NO_FILTER, action: 'room.created' }, 10, 0)).map((row) => row.target_id)).toEqual(['first']);
    expect(await events.page(org, { ...NO_FILTER, targetId: 'elsewhere' }, 10, 0)).toEqual([]);
  });

  it('appends events given together in their order, each with its own organization, actor and nulls', async () => {
    const org = await newOrganization();
    const other = await newOrganization();
    await events.insert(
      [
        event(org, { targetId: 'a', requestId: 'req-a', ip: '192.0.2.1', details: { quote: 'it\'s "quoted"', nested: { n: [1, null] } } }),
        event(other, { targetId: 'b', actorType: 'system' }),
        event(org, { targetId: 'c', actorEmail: 'c@example.test' }),
      ],
      autocommit(database),
    );
    expect(
      (await events.page(org, NO_FILTER, 10, 0)).map((row) => [row.target_id, row.request_id, row.ip, row.actor_email, row.details]),
    ).toEqual([
      ['c', null, null, 'c@example.test', {}],
      ['a', 'req-a', '192.0.2.1', null, { quote: 'it\'s "quoted"', nested: { n: [1, null] } }],
    ]);
    expect((await events.page(other, NO_FILTER, 10, 0)).map((row) => [row.target_id, row.actor_type])).toEqual([['b', 'system']]);
  });

  it('keeps the prefix of the key that acted, read from its row', async () => {
    const org = await newOrganization();
    const [{ id: userId }] = (await db.query(`INSERT INTO users (organization_id, email) VALUES ($1, 'k@example.test') RETURNING id`, [
      org,
    ])) as { id: string }[];
    const [{ id: apiKeyId }] = (await db.query(
      `INSERT INTO api_keys (organization_id, created_by_user_id, name, key_prefix, key_last4, key_hash)
       VALUES ($1, $2, 'k', 'trk_Ab12', 'wxyz', '\\x00') RETURNING id`,
      [org, userId],
    )) as { id: string }[];
    await events.insert([event(org, { actorType: 'api_key', actorUserId: userId, apiKeyId })], autocommit(database));
    const [row] = await events.page(org, NO_FILTER, 1, 0);
    expect(row).toMatchObject({
      actor_type: 'api_key',
      actor_user_id: userId,
      actor_api_key_id: apiKeyId,
      actor_api_key_prefix: 'trk_Ab12',
    });
  });

  it('refuses UPDATE and DELETE, and lets retention delete only what is older than its days', async () => {
    const org = await newOrganization();
    await events.insert([event(org, { targetId: 'recent' })], autocommit(database));
    await db.query(
      `INSERT INTO audit_events (organization_id, occurred_at, action, actor_type, target_type, target_id)
       VALUES ($1::uuid, now() - interval '31 days', 'room.created', 'operator', 'room', 'old')`,
      [org],
    );
    await expect(db.query(`DELETE FROM audit_events WHERE organization_id = $1`, [org])).rejects.toThrow(/append-only: DELETE/);
    await expect(db.query(`UPDATE audit_events SET details = '{}' WHERE organization_id = $1`, [org])).rejects.toThrow(
      /append-only: UPDATE/,
    );
    expect(await database.transaction((tx) => events.deleteExpired(30, 100, tx))).toBe(1);
    expect((await events.page(org, NO_FILTER, 10, 0)).map((row) => row.target_id)).toEqual(['recent']);
    // The permission lasted only for the retention's transaction.
    await expect(db.query(`DELETE FROM audit_events WHERE organization_id = $1`, [org])).rejects.toThrow(/append-only/);
  });
});
