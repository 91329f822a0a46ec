import { Client } from 'pg';
import { startLiveKitDouble, type LiveKitDouble } from '../support/livekit-double';
import { liveKitWebhookRequest, participantJoined, participantLeft, type WebhookEventJson } from '../support/livekit-webhooks';
import { freePort } from '../support/free-port';
import {
  cli,
  migrate,
  startApiProcess,
  startOwnPostgres,
  startOwnRedis,
  startWorkerProcess,
  type ApiProcess,
  type OwnPostgres,
  type OwnRedis,
  type WorkerProcess,
} from '../support/own-services';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const METRICS_TOKEN = 'worker-metrics-token-for-tests';
const RESTARTS = 5;
const SENDERS = 6;
const ROOMS = 6;

/**
 * Issue 25: the worker process died of an unhandled `'error'` (57P01) on a connection checked out
 * by a transaction when its PostgreSQL was stopped under load. Here the API and the queue workers
 * run as processes of their own on a PostgreSQL and a Redis of this test's own; LiveKit webhooks
 * arrive all along (a sender delivers again until it gets a 2xx) while PostgreSQL is stopped (fast
 * shutdown: 57P01 to every session) and started again five times, each time with transactions of
 * the worker waiting inside. The worker stays up, and every event is applied exactly once.
 */
describe('the queue workers while their PostgreSQL stops and starts under load', () => {
  let postgres: OwnPostgres;
  let redis: OwnRedis;
  let livekit: LiveKitDouble;
  let api: ApiProcess;
  let worker: WorkerProcess;
  let metricsPort: number;
  let auth: Record<string, string>;
  let organizationId: string;
  const databaseUrl = () => postgres.url('trk_worker_survives');
  /** People whose join and leave were delivered, over all tests. */
  let people = 0;
  let batches = 0;
  /** A failed test's senders give up instead of delivering for another minute. */
  let abandoned = false;

  beforeAll(async () => {
    [postgres, redis, livekit] = await Promise.all([startOwnPostgres(), startOwnRedis(), startLiveKitDouble()]);
    migrate(databaseUrl());
    const org = cli(databaseUrl(), 'org:create', '--name', 'Worker outages', '--email', 'ops@worker-outages.test');
    organizationId = org.organization_id as string;
    cli(databaseUrl(), 'credit:grant', '--org', organizationId, '--cents', '10000000');
    auth = { Authorization: `Bearer ${org.api_key as string}` };
    const env = {
      DATABASE_URL: databaseUrl(),
      REDIS_URL: redis.url,
      LIVEKIT_API_URL: livekit.url,
      LIVEKIT_API_KEY: livekit.apiKey,
      LIVEKIT_API_SECRET: livekit.apiSecret,
    };
    metricsPort = await freePort();
    [api, worker] = await Promise.all([
      // The senders are one client: no rate limit in their way.
      startApiProcess({ ...env, RUN_QUEUE_WORKERS: 'false', RATE_LIMITS_ENABLED: 'false' }),
      startWorkerProcess({
        ...env,
        HOST: '127.0.0.1',
        WORKER_METRICS_PORT: String(metricsPort),
        METRICS_TOKEN,
        // Its transactions wait on the test's lock until PostgreSQL stops, not for a timeout first.
        DATABASE_LOCK_TIMEOUT_MS: '60000',
        DATABASE_STATEMENT_TIMEOUT_MS: '60000',
      }),
    ]);
  }, 180_000);

  afterAll(async () => {
    await worker?.stop();
    await api?.stop();
    await redis?.kill();
    await postgres?.destroy();
    await livekit?.close();
  });

  /** A client of the test's own on the database (closed before each stop). */
  async function connect(): Promise<Client> {
    for (let attempt = 0; ; attempt++) {
      const client = new Client({ connectionString: databaseUrl() });
      client.on('error', () => undefined); // the stops end its connection too
      try {
        await client.connect();
        return client;
      } catch (error) {
        if (attempt >= 100) throw error;
        await sleep(200);
      }
    }
  }

  async function query<T>(sql: string, values: unknown[] = []): Promise<T[]> {
    const client = await connect();
    try {
      return (await client.query(sql, values)).rows as T[];
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  /** Sends until the API answers `expected` (it answers 503 while PostgreSQL is away), as LiveKit and API clients do. */
  async function until(expected: number, path: string, init: RequestInit): Promise<Record<string, unknown>> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const res = await fetch(`${api.url}${path}`, { ...init, signal: AbortSignal.timeout(20_000) }).catch(() => null);
      if (res?.status === expected) return (await res.json()) as Record<string, unknown>;
      if (Date.now() > deadline || abandoned) throw new Error(`${path} still answered ${res?.status ?? 'nothing'}`);
      await sleep(200);
    }
  }

  const post = (path: string, body: object) =>
    until(201, path, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const deliver = (event: WebhookEventJson) => {
    const { body, headers } = liveKitWebhookRequest(event, livekit);
    return until(200, '/v1/webhooks/livekit', { method: 'POST', headers, body });
  };

  const scrape = (host: string, token?: string) =>
    fetch(`http://${host}:${metricsPort}/metrics`, { headers: token ? { Authorization: `Bearer ${token}` } : {} });

  it('serves its metrics on HOST only, behind METRICS_TOKEN', async () => {
    expect((await scrape('127.0.0.1')).status).toBe(401);
    expect((await scrape('127.0.0.1', 'wrong')).status).toBe(401);
    const res = await scrape('127.0.0.1', METRICS_TOKEN);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('inbound_webhook_events_total');
    // HOST=127.0.0.1: another loopback address (every interface would take it) is refused.
    await expect(scrape('127.0.0.2', METRICS_TOKEN)).rejects.toThrow();
  });

  /**
   * Senders deliver a join and a leave per person (each after that person's token), over and over,
   * each delivering again until answered; `stop` lets each finish its person and says how many.
   */
  async function feed(): Promise<{ stop(abandon?: boolean): Promise<number> }> {
    const rooms: { name: string; livekitName: string }[] = [];
    for (let i = 0; i < ROOMS; i++) {
      const created = await post('/v1/rooms', {});
      const [{ livekit_name }] = await query<{ livekit_name: string }>(`SELECT livekit_name FROM rooms WHERE id = $1`, [created.id]);
      rooms.push({ name: created.room as string, livekitName: livekit_name });
    }
    const t0 = Math.floor(Date.now() / 1000) - 300;
    const batch = ++batches;
    abandoned = false;
    let feeding = true;
    let delivered = 0;
    const sender = async (n: number): Promise<void> => {
      for (let i = 0; feeding; i++) {
        const room = rooms[(n + i * SENDERS) % rooms.length];
        const identity = `b${batch}-s${n}-p${i}`;
        await post(`/v1/rooms/${room.name}/token`, { identity, languages: ['en'] });
        const person = { identity, sid: `PA_${identity}`, joinedAt: String(t0) };
        await deliver(participantJoined(room.livekitName, person));
        await deliver(participantLeft(room.livekitName, person, { createdAt: t0 + 150 }));
        delivered++;
      }
    };
    const senders = Array.from({ length: SENDERS }, (_, n) => sender(n));
    return {
      async stop(abandon = false) {
        feeding = false;
        abandoned = abandon;
        // Given up: the test's own error is the one to see.
        if (abandon) await Promise.allSettled(senders);
        else await Promise.all(senders);
        return delivered;
      },
    };
  }

  async function count(sql: string, values: unknown[] = []): Promise<number> {
    return (await query<{ n: number }>(sql, values))[0].n;
  }

  function expectAlive(when: string): void {
    if (!worker.alive()) throw new Error(`${when}: the worker process died:\n${worker.output()}`);
  }

  /** Every stored event applied (a job that failed with its connection ran again), each exactly once. */
  async function expectAllAppliedOnce(total: number, withinMs: number): Promise<void> {
    const deadline = Date.now() + withinMs;
    for (;;) {
      const n = await count(`SELECT count(*)::int AS n FROM inbound_events WHERE processed_at IS NULL`);
      if (n === 0) break;
      if (Date.now() > deadline) throw new Error(`${n} stored events were never applied`);
      await sleep(250);
    }
    const events = await count(`SELECT count(*)::int AS n FROM inbound_events`);
    const [connections] = await query<{ n: number; charged: number }>(
      `SELECT count(*)::int AS n, count(*) FILTER (WHERE connection_minutes = 3 AND charged_cents = 9)::int AS charged
         FROM connections WHERE organization_id = $1`,
      [organizationId],
    );
    const charges = await count(`SELECT count(*)::int AS n FROM ledger_entries WHERE organization_id = $1 AND room_id IS NOT NULL`, [
      organizationId,
    ]);
    expect({ events, connections, charges }).toEqual({ events: 2 * total, connections: { n: total, charged: total }, charges: total });
  }

  it(`stays up through ${RESTARTS} stops of PostgreSQL with transactions inside, and applies every event exactly once`, async () => {
    const feeding = await feed();
    const waiting: number[] = [];
    let failed = true;
    try {
      for (let restart = 1; restart <= RESTARTS; restart++) {
        // Charges wait on this lock: the worker's transactions are open, each on a checked-out connection, when the server stops.
        const blocker = await connect();
        await blocker.query('BEGIN');
        await blocker.query('SELECT 1 FROM credit_accounts WHERE organization_id = $1 FOR UPDATE', [organizationId]);
        // On a loaded machine (the suite runs two files at once) the feed can be slow: a stop without a
        // transaction inside still counts as a stop, but most stops must catch some (checked below).
        const deadline = Date.now() + 20_000;
        // Sessions waiting on this lock, or on the transactions that wait on it.
        const waitingOnLock = async (): Promise<number> =>
          (await blocker.query(`SELECT 1 FROM pg_stat_activity WHERE cardinality(pg_blocking_pids(pid)) > 0`)).rowCount ?? 0;
        while ((await waitingOnLock()) === 0 && Date.now() < deadline) await sleep(50);
        await sleep(500); // more of them pile up behind the first
        waiting.push(await waitingOnLock());
        const applied = await count(`SELECT count(*)::int AS n FROM inbound_events WHERE processed_at IS NOT NULL`);
        await postgres.stop();
        await blocker.end().catch(() => undefined);
        await sleep(1_000);
        expectAlive(`PostgreSQL stopped (${restart})`);
        await postgres.start();
        // Back at work before the next stop.
        const back = Date.now() + 30_000;
        while ((await count(`SELECT count(*)::int AS n FROM inbound_events WHERE processed_at IS NOT NULL`)) <= applied) {
          if (Date.now() > back) throw new Error(`restart ${restart}: the worker applied nothing after PostgreSQL came back`);
          await sleep(200);
        }
      }
      failed = false;
    } finally {
      people += await feeding.stop(failed);
    }
    await expectAllAppliedOnce(people, 30_000);
    expectAlive('after the restarts');
    expect(waiting.filter((n) => n > 0).length).toBeGreaterThanOrEqual(RESTARTS - 2);
    process.stdout.write(
      `[worker outages] ${people} people, ${2 * people} events; transactions waiting at each stop: ${waiting.join(', ')}\n`,
    );
    // Jobs did fail with their connections, and ran again.
    const metrics = await (await scrape('127.0.0.1', METRICS_TOKEN)).text();
    expect(metrics).toMatch(/inbound_webhook_events_total\{provider="livekit",outcome="failed"\} [1-9]/);
  }, 90_000);

  it('stays up while its Redis is killed and started again (empty), and applies every event exactly once', async () => {
    const feeding = await feed();
    let failed = true;
    try {
      await sleep(1_000);
      await redis.kill();
      await sleep(2_000);
      expectAlive('Redis killed');
      await redis.start();
      await sleep(2_000);
      failed = false;
    } finally {
      people += await feeding.stop(failed);
    }
    // Jobs Redis lost with its contents are enqueued again by the sweep of stored events (every 15 s).
    await expectAllAppliedOnce(people, 45_000);
    expectAlive('after the Redis restart');
  }, 90_000);
});
