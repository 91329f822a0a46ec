import type { DataSource } from 'typeorm';
import { DatabaseClient } from '../../src/database/database.client';
import { CUSTOMER_EVENT_TYPES } from '../../src/modules/customer-webhooks/event-types';
import { WebhookEndpointsRepository, type NewWebhookEndpoint } from '../../src/modules/customer-webhooks/webhook-endpoints.repository';
import { autocommit } from '../support/autocommit';
import { closeMediumDatabase, mediumPool, openMediumDatabase } from '../support/medium-database';

/** `webhook_endpoints` on the real database: each organization sees and deletes only its own, newest first. */
describe('WebhookEndpointsRepository', () => {
  let databaseUrl: string;
  let db: DataSource;
  let database: DatabaseClient;
  let endpoints: WebhookEndpointsRepository;

  beforeAll(async () => {
    ({ url: databaseUrl, dataSource: db } = await openMediumDatabase());
    database = new DatabaseClient(mediumPool(db));
    endpoints = new WebhookEndpointsRepository(database);
  });
  afterAll(async () => {
    await closeMediumDatabase(databaseUrl, db);
  });

  const newOrganization = async (): Promise<string> => {
    const [{ id }] = (await db.query(`INSERT INTO organizations (name) VALUES ('webhooks') RETURNING id`)) as { id: string }[];
    return id;
  };
  const endpoint = (organizationId: string, more: Partial<NewWebhookEndpoint> = {}): NewWebhookEndpoint => ({
    organizationId,
    url: 'https://example.com/hook',
    events: null,
    description: null,
    secret: 'whsec_test',
    ...more,
  });

  it('answers a new endpoint as shown (every type when it has no list; no secret)', async () => {
    const org = await newOrganization();
    const all = await endpoints.create(endpoint(org, { description: 'all of them' }), autocommit(database));
    expect(all).toEqual({
      id: expect.any(String),
      url: 'https://example.com/hook',
      events: [...CUSTOMER_EVENT_TYPES],
      description: 'all of them',
      enabled: true,
      created_at: expect.any(Date),
    });
    const some = await endpoints.create(endpoint(org, { events: ['room.ended', 'credit.low'] }), autocommit(database));
    expect(some.events).toEqual(['room.ended', 'credit.low']);
    expect(await endpoints.subscribed([org])).toEqual([
      { id: all.id, organizationId: org, events: null },
      { id: some.id, organizationId: org, events: ['room.ended', 'credit.low'] },
    ]);
  });

  it("lists and deletes only the organization's own endpoints", async () => {
    const [mine, theirs] = [await newOrganization(), await newOrganization()];
    const a = await endpoints.create(endpoint(mine), autocommit(database));
    const b = await endpoints.create(endpoint(theirs), autocommit(database));
    expect((await endpoints.page(mine, 10, 0)).map((e) => e.id)).toEqual([a.id]);
    expect(await endpoints.exists(b.id, mine)).toBe(false);
    expect(await endpoints.delete(b.id, mine, autocommit(database))).toBe(false);
    expect(await endpoints.exists(b.id, theirs)).toBe(true);
    expect((await endpoints.subscribed([mine])).map((e) => e.id)).toEqual([a.id]);

    expect(await database.transaction((tx) => endpoints.delete(a.id, mine, tx))).toBe(true);
    expect(await endpoints.delete(a.id, mine, autocommit(database))).toBe(false);
    expect(await endpoints.exists(a.id, mine)).toBe(false);
    expect(await endpoints.page(mine, 10, 0)).toEqual([]);
    expect(await endpoints.subscribed([mine, theirs])).toEqual([{ id: b.id, organizationId: theirs, events: null }]);
  });

  it('lists newest first as shown: endpoints created within one millisecond by id, whatever their microseconds', async () => {
    const org = await newOrganization();
    const created = [];
    for (let i = 0; i < 4; i++) created.push(await endpoints.create(endpoint(org), autocommit(database)));
    const ids = created.map((e) => e.id).sort();
    // Two pairs, each within one millisecond, each pair's microseconds ordered against its ids.
    const at = [
      '2025-03-01 10:00:00.123900+00',
      '2025-03-01 10:00:00.123100+00',
      '2025-03-01 10:00:00.500100+00',
      '2025-03-01 10:00:00.500900+00',
    ];
    for (const [i, id] of ids.entries()) await db.query(`UPDATE webhook_endpoints SET created_at = $2 WHERE id = $1`, [id, at[i]]);

    const listed = await endpoints.page(org, 10, 0);
    const shown = listed.map((e) => ({ id: e.id, created_at: e.created_at.toJSON() }));
    expect(shown).toEqual([
      { id: ids[3], created_at: '2025-03-01T10:00:00.500Z' },
      { id: ids[2], created_at: '2025-03-01T10:00:00.500Z' },
      { id: ids[1], created_at: '2025-03-01T10:00:00.123Z' },
      { id: ids[0], created_at: '2025-03-01T10:00:00.123Z' },
    ]);
    // Pages follow the same order.
    expect([...(await endpoints.page(org, 2, 0)), ...(await endpoints.page(org, 2, 2))].map((e) => e.id)).toEqual(listed.map((e) => e.id));
  });
});
