import { QUEUES } from '@app/contracts';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { MetricsRegistry } from '../../common/metrics/metrics.registry';
import type { AppConfig } from '../../config/app-config';
import type { DurableQueueService } from '../../queue/durable-queue.service';
import type { QueueRegistry } from '../../queue/queue.registry';
import { CustomerWebhookDeliveryWorker, type DeliveryJob } from './customer-webhook-delivery.worker';
import type { ClaimedDelivery, DeliveryOutcome, WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import type { DatabaseClient } from '../../database/database.client';
import type { Tx } from '../../database/sql';

/**
 * An endpoint's job with its repository and queue replaced, posting to a local endpoint: what it
 * records for each answer, the retry job it schedules, and a job that finds nothing to claim.
 */
describe('CustomerWebhookDeliveryWorker', () => {
  const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
  const schedule = [5_000, 30_000, 120_000];

  let server: Server;
  let url: string;
  /** How the local endpoint answers each event, by webhook-id (no entry: never). */
  let answers: Map<string, number>;
  let posted: { headers: IncomingHttpHeaders; body: string }[];
  /** What each claim of the endpoint's due deliveries finds, in turn (then nothing). */
  let claims: ClaimedDelivery[][];
  let recorded: (DeliveryOutcome & { endpointId: string })[];
  let added: { queue: string; data: unknown; options: { jobId?: string; delay?: number } }[];
  let counted: string[];
  let deliver: (endpointId: string) => Promise<unknown>;

  const delivery = (eventId: string, attempts = 0): ClaimedDelivery => ({
    id: `d-${eventId}`,
    attempts,
    maxAttempts: schedule.length + 1,
    eventId,
    body: JSON.stringify({ id: eventId }),
    url,
    secret,
  });

  beforeEach(async () => {
    answers = new Map();
    posted = [];
    claims = [];
    recorded = [];
    added = [];
    counted = [];
    server = createServer((req, res: ServerResponse) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        posted.push({ headers: req.headers, body });
        const status = answers.get(String(req.headers['webhook-id']));
        if (status !== undefined) res.writeHead(status).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;

    const deliveries = {
      claim: async () => claims.shift() ?? [],
      record: async (outcomes: (DeliveryOutcome & { endpointId: string })[]) => void recorded.push(...outcomes),
    } as unknown as WebhookDeliveriesRepository;
    const queues = {
      process: (_queue: string, handler: (job: { data: DeliveryJob }) => Promise<unknown>) => {
        deliver = (endpointId) => handler({ data: { endpointId } });
      },
      add: async (queue: string, _name: string, data: unknown, options: { jobId?: string; delay?: number }) =>
        void added.push({ queue, data, options }),
    } as unknown as QueueRegistry;
    const durable = { stopping: false, register: () => undefined } as unknown as DurableQueueService;
    const metrics = {
      customerDeliveries: { inc: ({ outcome }: { outcome: string }) => void counted.push(outcome) },
    } as unknown as MetricsRegistry;
    const config = {
      queue: { runWorkers: true },
      webhooks: { retryScheduleMs: schedule, timeoutMs: 300, allowPrivateUrls: true, concurrency: 1, endpointConcurrency: 8 },
    } as unknown as AppConfig;
    const database = { oneStatement: <T>(work: (tx: Tx) => Promise<T>) => work({} as Tx) } as DatabaseClient;
    new CustomerWebhookDeliveryWorker(deliveries, database, queues, durable, metrics, config).onModuleInit();
  });
  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('records each answer as delivered, retried at the next wait, or failed after the last attempt, and comes back for the retry', async () => {
    answers.set('evt_ok', 204).set('evt_500', 500);
    claims = [[delivery('evt_ok'), delivery('evt_500', 1), delivery('evt_silent', 3)]];
    await deliver('ep-1');

    const byId = new Map(recorded.map((o) => [o.id, o]));
    expect(recorded).toHaveLength(3);
    expect(byId.get('d-evt_ok')).toEqual({
      endpointId: 'ep-1',
      id: 'd-evt_ok',
      attempts: 1,
      status: 'delivered',
      statusCode: 204,
      error: null,
      waitMs: null,
    });
    expect(byId.get('d-evt_500')).toEqual({
      endpointId: 'ep-1',
      id: 'd-evt_500',
      attempts: 2,
      status: 'pending',
      statusCode: 500,
      error: 'The endpoint answered 500.',
      waitMs: 30_000,
    });
    expect(byId.get('d-evt_silent')).toEqual({
      endpointId: 'ep-1',
      id: 'd-evt_silent',
      attempts: 4,
      status: 'failed',
      statusCode: null,
      error: 'No answer within 0.3 s.',
      waitMs: null,
    });
    expect(counted.sort()).toEqual(['delivered', 'failed', 'retried']);
    expect(added).toEqual([
      {
        queue: QUEUES.customerWebhooks,
        data: { endpointId: 'ep-1' },
        options: expect.objectContaining({ jobId: expect.stringMatching(/^endpoint\.ep-1\.retry\./) as string, delay: 30_000 }) as object,
      },
    ]);
  });

  it('signs each post so that standardwebhooks verifies it with the endpoint secret', async () => {
    answers.set('evt_1', 200);
    claims = [[delivery('evt_1')]];
    await deliver('ep-1');
    expect(posted).toHaveLength(1);
    const { headers, body } = posted[0];
    expect(headers['webhook-id']).toBe('evt_1');
    const verify = () =>
      new Webhook(secret).verify(body, {
        'webhook-id': String(headers['webhook-id']),
        'webhook-timestamp': String(headers['webhook-timestamp']),
        'webhook-signature': String(headers['webhook-signature']),
      });
    expect(verify).not.toThrow();
    expect(recorded.map((o) => o.status)).toEqual(['delivered']);
    expect(added).toEqual([]);
  });

  it('posts nothing and ends when nothing of the endpoint can be claimed (as once it is deleted)', async () => {
    await deliver('ep-gone');
    expect(posted).toEqual([]);
    expect(recorded).toEqual([]);
    expect(added).toEqual([]);
  });
});
