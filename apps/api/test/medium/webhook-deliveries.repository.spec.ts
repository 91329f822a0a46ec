import type { DataSource } from 'typeorm';
import { DatabaseClient } from '../../src/database/database.client';
import { WebhookDeliveriesRepository, type NewEvent } from '../../src/modules/customer-webhooks/webhook-deliveries.repository';
import { WebhookEndpointsRepository } from '../../src/modules/customer-webhooks/webhook-endpoints.repository';
import { autocommit } from '../support/autocommit';
import { closeMediumDatabase, mediumPool, openMediumDatabase } from '../support/medium-database';

/**
 * `webhook_events` and `webhook_deliveries` on the real database: the outbox written with a change,
 * the log an organization sees (its own only, in the order it shows), and the dispatcher's claims.
 */
describe('WebhookDeliveriesRepository', () => {
  let databaseUrl: string;
  let db: DataSource;
  let database: DatabaseClient;
  let deliveries: WebhookDeliveriesRepository;
  let endpoints: WebhookEndpointsRepository;
  let eventCount = 0;

  beforeAll(async () => {
    ({ url: databaseUrl, dataSource: db } = await openMediumDatabase());
    database = new DatabaseClient(mediumPool(db));
    deliveries = new WebhookDeliveriesRepository(database);
    endpoints = new WebhookEndpointsRepository(database);
  });
  afterAll(async () => {
    await closeMediumDatabase(databaseUrl, db);
  });

  const newOrganization = async (): Promise<string> => {
    const [{ id }] = (await db.query(`INSERT INTO organizations (name) VALUES ('deliveries') RETURNING id`)) as { id: string }[];
    return id;
  };
  const newEndpoint = async (organizationId: string): Promise<string> =>
    (
      await endpoints.create(
        { organizationId, url: 'https://example.com/hook', events: null, description: null, secret: 'whsec_x' },
        autocommit(database),
      )
    ).id;
  /** Events of the organization and one pending delivery of each to the endpoint, in this order; the deliveries' ids. */
  const send = async (organizationId: string, endpointId: string, lanes: (string | null)[]): Promise<string[]> => {
    const events: NewEvent[] = lanes.map(() => {
      const id = `evt_${++eventCount}`;
      return { id, organizationId, type: 'credit.low', roomId: null, body: JSON.stringify({ id }) };
    });
    await database.transaction(async (tx) => {
      await deliveries.insert(
        events,
        events.map((event, i) => ({ endpointId, eventId: event.id, lane: lanes[i] })),
        8,
        tx,
      );
    });
    const rows = (await db.query(
      `SELECT d.id FROM webhook_deliveries d JOIN webhook_events ev ON ev.seq = d.event_seq WHERE ev.id = ANY($1) ORDER BY d.seq`,
      [events.map((e) => e.id)],
    )) as { id: string }[];
    return rows.map((row) => row.id);
  };

  it('shows an organization the log of its own endpoint only, with typed values', async () => {
    const [mine, theirs] = [await newOrganization(), await newOrganization()];
    const [myEndpoint, theirEndpoint] = [await newEndpoint(mine), await newEndpoint(theirs)];
    const [delivery] = await send(mine, myEndpoint, [null]);
    await send(theirs, theirEndpoint, [null]);
    const log = await deliveries.page(myEndpoint, mine, 10, 0);
    expect(log).toEqual([
      {
        id: delivery,
        event_id: `evt_${eventCount - 1}`,
        event_type: 'credit.low',
        status: 'pending',
        attempts: 0,
        last_status_code: null,
        last_error: null,
        next_attempt_at: expect.any(Date),
        delivered_at: null,
        created_at: expect.any(Date),
      },
    ]);
    expect(await deliveries.page(theirEndpoint, mine, 10, 0)).toEqual([]);
    expect(await deliveries.page(myEndpoint, theirs, 10, 0)).toEqual([]);
  });

  it('lists the log newest first as shown: deliveries created within one millisecond by id, whatever their microseconds', async () => {
    const org = await newOrganization();
    const endpoint = await newEndpoint(org);
    // Created by one statement, within the same millisecond or two.
    const ids = (await send(org, endpoint, [null, null, null, null])).sort();
    const at = [
      '2025-03-01 10:00:00.123900+00',
      '2025-03-01 10:00:00.123100+00',
      '2025-03-01 10:00:00.500100+00',
      '2025-03-01 10:00:00.500900+00',
    ];
    for (const [i, id] of ids.entries()) await db.query(`UPDATE webhook_deliveries SET created_at = $2 WHERE id = $1`, [id, at[i]]);

    const log = await deliveries.page(endpoint, org, 10, 0);
    expect(log.map((d) => ({ id: d.id, created_at: d.created_at.toJSON() }))).toEqual([
      { id: ids[3], created_at: '2025-03-01T10:00:00.500Z' },
      { id: ids[2], created_at: '2025-03-01T10:00:00.500Z' },
      { id: ids[1], created_at: '2025-03-01T10:00:00.123Z' },
      { id: ids[0], created_at: '2025-03-01T10:00:00.123Z' },
    ]);
    expect([...(await deliveries.page(endpoint, org, 3, 0)), ...(await deliveries.page(endpoint, org, 3, 3))].map((d) => d.id)).toEqual(
      log.map((d) => d.id),
    );
  });

  it("claims the heads of an endpoint's lanes once, and the next of a lane after its head is recorded", async () => {
    const org = await newOrganization();
    const endpoint = await newEndpoint(org);
    const [roomFirst, credit, roomSecond] = await send(org, endpoint, ['room-1', null, 'room-1']);
    expect(await deliveries.dueEndpoints()).toContain(endpoint);

    const claimed = await deliveries.claim(endpoint, 10, 30, autocommit(database));
    // The head of the room's lane and the delivery without a lane (in no particular order), not the lane's second.
    expect(claimed.map((d) => d.id).sort()).toEqual([roomFirst, credit].sort());
    expect(claimed.find((d) => d.id === roomFirst)).toEqual({
      id: roomFirst,
      attempts: 0,
      maxAttempts: 8,
      eventId: expect.stringMatching(/^evt_/),
      body: expect.stringContaining('"id":"evt_'),
      url: 'https://example.com/hook',
      secret: 'whsec_x',
    });
    // Leased: not claimed again (the lane's second waits for its head).
    expect(await deliveries.claim(endpoint, 10, 30, autocommit(database))).toEqual([]);

    await deliveries.record(
      [
        { id: roomFirst, attempts: 1, status: 'delivered', statusCode: 204, error: null, waitMs: null },
        { id: credit, attempts: 1, status: 'pending', statusCode: 500, error: 'The endpoint answered 500.', waitMs: 60_000 },
      ],
      autocommit(database),
    );
    expect((await deliveries.claim(endpoint, 10, 30, autocommit(database))).map((d) => d.id)).toEqual([roomSecond]);
    const log = await deliveries.page(endpoint, org, 10, 0);
    expect(log.find((d) => d.id === roomFirst)).toMatchObject({
      status: 'delivered',
      attempts: 1,
      last_status_code: 204,
      next_attempt_at: null,
    });
    const retried = log.find((d) => d.id === credit)!;
    expect(retried).toMatchObject({ status: 'pending', attempts: 1, last_error: 'The endpoint answered 500.' });
    expect(retried.next_attempt_at!.getTime()).toBeGreaterThan(Date.now() + 50_000);
  });

  it("retries and fails only the organization's own deliveries, and a deleted endpoint's claim finds nothing", async () => {
    const [mine, theirs] = [await newOrganization(), await newOrganization()];
    const endpoint = await newEndpoint(mine);
    const [failed, pending] = await send(mine, endpoint, [null, null]);
    await deliveries.record(
      [{ id: failed, attempts: 8, status: 'failed', statusCode: null, error: 'No answer within 10 s.', waitMs: null }],
      autocommit(database),
    );

    expect(await deliveries.retry(failed, endpoint, theirs, autocommit(database))).toBeNull();
    const retried = await deliveries.retry(failed, endpoint, mine, autocommit(database));
    expect(retried).toMatchObject({ id: failed, status: 'pending', attempts: 8, last_error: 'No answer within 10 s.' });
    const [{ max_attempts }] = (await db.query(`SELECT max_attempts FROM webhook_deliveries WHERE id = $1`, [failed])) as {
      max_attempts: number;
    }[];
    expect(max_attempts).toBe(9); // exactly one more attempt

    expect(await deliveries.failPending(endpoint, theirs, autocommit(database))).toBe(0);
    await database.transaction(async (tx) => {
      await endpoints.delete(endpoint, mine, tx);
      expect(await deliveries.failPending(endpoint, mine, tx)).toBe(2);
    });
    expect(await deliveries.claim(endpoint, 10, 30, autocommit(database))).toEqual([]);
    expect(await deliveries.retry(pending, endpoint, mine, autocommit(database))).toBeNull();
    const log = await deliveries.page(endpoint, mine, 10, 0);
    expect(log.map((d) => [d.status, d.last_error])).toEqual([
      ['failed', 'The endpoint was deleted.'],
      ['failed', 'The endpoint was deleted.'],
    ]);
  });
});
