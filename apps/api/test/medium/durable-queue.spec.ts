import { RoomsRepository } from '../../src/modules/rooms/rooms.repository';
import { QUEUES, type QueueName } from '@app/contracts';
import type { DataSource } from 'typeorm';
import { loadConfig, type AppConfig } from '../../src/config/app-config';
import { DatabaseClient } from '../../src/database/database.client';
import { HotRowWritesService } from '../../src/database/hot-row-writes.service';
import { NotificationsClient } from '../../src/database/notifications.client';
import { CustomerEventsPublisher } from '../../src/modules/customer-webhooks/customer-events.publisher';
import { CustomerWebhookDeliveryWorker } from '../../src/modules/customer-webhooks/customer-webhook-delivery.worker';
import { WebhookDeliveriesRepository } from '../../src/modules/customer-webhooks/webhook-deliveries.repository';
import { WebhookEndpointsRepository } from '../../src/modules/customer-webhooks/webhook-endpoints.repository';
import { MetricsRegistry } from '../../src/common/metrics/metrics.registry';
import { InboundEventsService } from '../../src/modules/webhooks/inbound-events.service';
import { InboundEventsRepository } from '../../src/modules/webhooks/inbound-events.repository';
import { DurableQueueService, type DurableSource } from '../../src/queue/durable-queue.service';
import { OutboxPublisher } from '../../src/queue/outbox.publisher';
import { OutboxRepository } from '../../src/queue/outbox.repository';
import { PeriodicJobsScheduler } from '../../src/queue/periodic-jobs.scheduler';
import { QueueRegistry } from '../../src/queue/queue.registry';
import { autocommit } from '../support/autocommit';
import { deleteKeysOf, testQueuePrefix } from '../support/redis-keys';
import { closeMediumDatabase, mediumPool, openMediumDatabase } from '../support/medium-database';

const until = async (condition: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

/**
 * The one durable-enqueue path on the real PostgreSQL and Redis, without the application: the three
 * sources (outbox jobs, stored inbound events, due customer-webhook deliveries) plugged into one
 * DurableQueueService, with nothing consuming the queues so what was enqueued stays to be counted.
 */
describe('the durable queue', () => {
  let databaseUrl: string;
  let db: DataSource;
  let database: DatabaseClient;
  let config: AppConfig;
  let registry: QueueRegistry;
  let durable: DurableQueueService;
  let periodic: PeriodicJobsScheduler;
  let metrics: MetricsRegistry;
  let outbox: OutboxPublisher;
  let inboundRepository: InboundEventsRepository;
  let customerEvents: CustomerEventsPublisher;
  let endpoints: WebhookEndpointsRepository;

  beforeAll(async () => {
    ({ url: databaseUrl, dataSource: db } = await openMediumDatabase());
    database = new DatabaseClient(mediumPool(db));
    config = loadConfig({
      ...process.env,
      NODE_ENV: 'test',
      DATABASE_URL: databaseUrl,
      QUEUE_PREFIX: testQueuePrefix(),
      RUN_QUEUE_WORKERS: 'true',
    });
    registry = new QueueRegistry(config);
    metrics = new MetricsRegistry();
    periodic = new PeriodicJobsScheduler(registry, metrics, config);
    durable = new DurableQueueService(registry, new NotificationsClient(db), periodic);
    const deliveries = new WebhookDeliveriesRepository(database);
    endpoints = new WebhookEndpointsRepository(database);
    inboundRepository = new InboundEventsRepository(database);
    outbox = new OutboxPublisher(new OutboxRepository(database), database, durable);
    new InboundEventsService(database, inboundRepository, durable, metrics);
    // Registers the due deliveries as a source; its queue handler is never registered, so nothing is sent.
    new CustomerWebhookDeliveryWorker(deliveries, database, registry, durable, metrics, config);
    customerEvents = new CustomerEventsPublisher(new HotRowWritesService(), config, endpoints, deliveries, new RoomsRepository(database));
  });
  afterAll(async () => {
    await durable.close();
    await periodic.beforeApplicationShutdown();
    await registry.onApplicationShutdown();
    await deleteKeysOf(config.redisUrl, config.queuePrefix);
    await closeMediumDatabase(databaseUrl, db);
  });

  const jobIds = async (queue: QueueName): Promise<string[]> =>
    (await registry.queue(queue).getJobs(['waiting', 'delayed', 'active', 'completed', 'failed'])).map((job) => job.id!).sort();
  const newEndpoint = async (): Promise<{ organizationId: string; endpointId: string }> => {
    const [{ id: organizationId }] = (await db.query(`INSERT INTO organizations (name) VALUES ('durable') RETURNING id`)) as {
      id: string;
    }[];
    const { id: endpointId } = await endpoints.create(
      {
        organizationId,
        url: 'https://example.com/hook',
        events: null,
        description: null,
        secret: 'whsec_x',
      },
      autocommit(database),
    );
    return { organizationId, endpointId };
  };
  const emitCreditLow = (organizationId: string) =>
    database.transaction((tx) =>
      customerEvents.emit(tx, {
        organizationId,
        type: 'credit.low',
        data: { credit_cents: 40, low_balance_cents: 50, currency: 'usd' },
      }),
    );

  it('enqueues what a crash left of each source exactly once, however often it sweeps', async () => {
    // The rows are committed; the process "dies" before enqueuing anything.
    const presence = {
      queue: QUEUES.translatorPresence,
      name: 'translator.dismiss',
      jobId: 'room-1.3.dismiss',
      payload: { roomId: 'room-1', livekitRoom: 'lk-1', generation: 3 },
    };
    await database.transaction((tx) => outbox.write(tx, [presence]));
    await inboundRepository.insert(
      [
        {
          provider: 'livekit',
          eventId: 'EV_a',
          eventType: 'room_started',
          subject: 'lk-1',
          payloadJson: JSON.stringify({ room: { name: 'lk-1' } }),
        },
        {
          provider: 'livekit',
          eventId: 'EV_b',
          eventType: 'room_finished',
          subject: 'lk-1',
          payloadJson: JSON.stringify({ room: { name: 'lk-1' } }),
        },
        {
          provider: 'stripe',
          eventId: 'evt_a',
          eventType: 'checkout.session.completed',
          subject: null,
          payloadJson: JSON.stringify({ id: 'evt_a' }),
        },
      ],
      autocommit(database),
    );
    // Stored a minute ago: a fresh one may still be on its way to the queue from the request that stored it.
    await db.query(`UPDATE inbound_events SET received_at = now() - interval '1 minute'`);
    const { organizationId, endpointId } = await newEndpoint();
    await emitCreditLow(organizationId);
    await emitCreditLow(organizationId);

    const now = Date.now();
    expect(await durable.sweepAll(now)).toEqual({ outbox: 1, 'inbound-events': 2, 'customer-webhook-deliveries': 1 });
    // Again (as another process, or the next tick would): nothing more is in the queues.
    await durable.sweepAll(now);
    await outbox.sweep();

    expect(await jobIds(QUEUES.translatorPresence)).toEqual(['room-1.3.dismiss']);
    const [presenceJob] = await registry.queue(QUEUES.translatorPresence).getJobs(['waiting']);
    expect(presenceJob.data).toEqual(presence.payload);
    expect(await jobIds(QUEUES.customerWebhooks)).toEqual([`endpoint.${endpointId}`]);
    const [livekitJob] = await registry.queue(QUEUES.livekitEvents).getJobs(['waiting']);
    expect(await jobIds(QUEUES.livekitEvents)).toEqual([livekitJob.id]);
    expect(livekitJob.data).toEqual({
      events: [
        { id: 'EV_a', subject: 'lk-1' },
        { id: 'EV_b', subject: 'lk-1' },
      ],
    });
    const [stripeJob] = await registry.queue(QUEUES.stripeEvents).getJobs(['waiting']);
    expect(await jobIds(QUEUES.stripeEvents)).toEqual([stripeJob.id]);
    expect(stripeJob.data).toEqual({ events: [{ id: 'evt_a', subject: null }] });
    // The outbox row is marked: the next sweep has nothing of it.
    expect(await durable.sweepAll()).toMatchObject({ outbox: 0 });
  });

  it('registers a periodic sweep per source, with its period', () => {
    expect(periodic.list()).toEqual([
      { name: 'sweep.outbox', everyMs: 5_000 },
      { name: 'sweep.inbound-events', everyMs: 15_000 },
      { name: 'sweep.customer-webhook-deliveries', everyMs: 1_000 },
    ]);
  });

  it('sweeps on its own once started, a committed delivery at once through its notification, and stops with close', async () => {
    const sweeps: number[] = [];
    const counting: DurableSource = {
      name: 'counting',
      sweepEveryMs: 1_000,
      due: async () => {
        sweeps.push(Date.now());
        return [];
      },
    };
    durable.register(counting);
    const listening = async () => {
      const rows = (await db.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN%'`,
      )) as {
        n: number;
      }[];
      return rows[0].n;
    };
    expect(await listening()).toBe(0);
    // As the application boots: the periodic queue's worker, the schedulers, the listeners.
    periodic.onModuleInit();
    periodic.onApplicationBootstrap();
    await durable.start();
    expect(await listening()).toBe(1);

    // A commit that inserts deliveries is enqueued within a moment, not at the next tick only.
    const { organizationId, endpointId } = await newEndpoint();
    const committed = Date.now();
    await emitCreditLow(organizationId);
    await until(async () => (await jobIds(QUEUES.customerWebhooks)).includes(`endpoint.${endpointId}`));
    expect(Date.now() - committed).toBeLessThan(1_000);
    await until(async () => sweeps.length >= 2, 5_000);
    // Each scheduled sweep is counted in the metrics and recorded in Redis.
    await until(async () => (await periodic.lastRuns()).some((run) => run.job === 'sweep.counting' && run.runs >= 2), 5_000);
    const counted = (await metrics.periodicRuns.get()).values.find((v) => v.labels.job === 'sweep.counting' && v.labels.outcome === 'ok');
    expect(counted?.value).toBeGreaterThanOrEqual(2);

    await durable.close();
    expect(durable.stopping).toBe(true);
    expect(await listening()).toBe(0);
    const after = sweeps.length;
    // Neither a scheduled run nor a notification sweeps any more.
    const other = await newEndpoint();
    await emitCreditLow(other.organizationId);
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(sweeps.length).toBe(after);
    expect(await jobIds(QUEUES.customerWebhooks)).not.toContain(`endpoint.${other.endpointId}`);
  });
});
