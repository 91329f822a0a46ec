import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { DatabaseClient } from '../../src/database/database.client';
import { MetricsRepository } from '../../src/modules/metrics/metrics.repository';
import { closeMediumDatabase, mediumPool, openMediumDatabase } from '../support/medium-database';

/** The operator's gauges on the real database, without the application: counted across every organization. */
describe('MetricsRepository', () => {
  let databaseUrl: string;
  let dataSource: DataSource;
  let reads: MetricsRepository;

  beforeAll(async () => {
    ({ url: databaseUrl, dataSource } = await openMediumDatabase());
    reads = new MetricsRepository(new DatabaseClient(mediumPool(dataSource)));
  });
  afterAll(async () => {
    await closeMediumDatabase(databaseUrl, dataSource);
  });

  const newRoom = async (status: 'created' | 'active' | 'ended') => {
    const [{ id: organizationId }] = (await dataSource.query(`INSERT INTO organizations (name) VALUES ('metrics') RETURNING id`)) as {
      id: string;
    }[];
    const [{ id: userId }] = (await dataSource.query(
      `INSERT INTO users (organization_id, email) VALUES ($1, 'u@example.test') RETURNING id`,
      [organizationId],
    )) as { id: string }[];
    const [{ id: roomId }] = (await dataSource.query(
      `INSERT INTO rooms (organization_id, name, livekit_name, created_by_user_id, status) VALUES ($1, 'room', $2, $3, $4) RETURNING id`,
      [organizationId, `lk-${randomUUID()}`, userId, status],
    )) as { id: string }[];
    return { organizationId, roomId };
  };
  const connect = (room: { organizationId: string; roomId: string }, left: boolean) =>
    dataSource.query(
      `INSERT INTO connections (room_id, organization_id, participant_sid, identity, joined_at, left_at, cents_per_minute)
       VALUES ($1, $2, $3, 'someone', now() - interval '5 minutes', CASE WHEN $4::boolean THEN now() END, 10)`,
      [room.roomId, room.organizationId, `PA_${randomUUID()}`, left],
    );

  it('counts active rooms and open connections of every organization, as numbers', async () => {
    expect(await reads.activeRooms()).toBe(0);
    expect(await reads.openConnections()).toBe(0);
    const a = await newRoom('active');
    const b = await newRoom('active');
    await newRoom('created');
    const ended = await newRoom('ended');
    await connect(a, false);
    await connect(a, false);
    await connect(b, false);
    await connect(b, true);
    await connect(ended, true);
    expect(await reads.activeRooms()).toBe(2);
    expect(await reads.openConnections()).toBe(3);
  });

  it('ages the oldest unapplied inbound event per provider, 0 for a provider with none', async () => {
    expect(await reads.unappliedInboundAges()).toEqual([
      { provider: 'livekit', seconds: 0 },
      { provider: 'stripe', seconds: 0 },
    ]);
    await dataSource.query(
      `INSERT INTO inbound_events (provider, event_id, event_type, payload, received_at, processed_at) VALUES
         ('livekit', 'applied', 'room_started', '{}', now() - interval '1 hour', now()),
         ('livekit', 'waiting', 'room_started', '{}', now() - interval '90 seconds', NULL),
         ('livekit', 'newer', 'room_started', '{}', now() - interval '10 seconds', NULL)`,
    );
    const ages = await reads.unappliedInboundAges();
    expect(ages.map((age) => age.provider)).toEqual(['livekit', 'stripe']);
    expect(typeof ages[0].seconds).toBe('number');
    expect(ages[0].seconds).toBeGreaterThanOrEqual(90);
    expect(ages[0].seconds).toBeLessThan(120);
    expect(ages[1].seconds).toBe(0);
  });
});
