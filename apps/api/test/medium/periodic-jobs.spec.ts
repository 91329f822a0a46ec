import { spawn, type ChildProcess } from 'node:child_process';
import Redis from 'ioredis';
import { freePort, leftAfter, ROOT, sleep } from '../support/dev-run';
import { deleteKeysOf, testQueuePrefix } from '../support/redis-keys';
import { createTestDatabase, dropTestDatabase } from '../support/test-database';

/** The periodic jobs of the application and their periods (docs/decisions.md "Periodic work"). */
const PERIODS_MS: Record<string, number> = {
  'sweep.outbox': 5_000,
  'sweep.inbound-events': 15_000,
  'sweep.customer-webhook-deliveries': 1_000,
  'sweep.settling-rooms': 1_000,
  'transcripts.readiness': 5_000,
  'transcripts.retention': 60 * 60_000,
  'audit.retention': 60 * 60_000,
  'events.retention': 60 * 60_000,
  'idempotency.cleanup': 10 * 60_000,
};
const WINDOW_MS = 12_000;

interface Worker {
  child: ChildProcess;
  metricsPort: number;
}

/** A metric's samples by their `job` label (only those whose other labels match `labels`). */
function samples(text: string, metric: string, labels: Record<string, string> = {}): Record<string, number> {
  const found: Record<string, number> = {};
  for (const line of text.split('\n')) {
    const match = new RegExp(`^${metric}\\{([^}]*)\\} (\\S+)$`).exec(line);
    if (!match) continue;
    const set = Object.fromEntries([...match[1].matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => set[k] === v)) found[set.job] = Number(match[2]);
  }
  return found;
}

/**
 * Three queue-worker processes (apps/api/src/worker.ts, as deployed) on one database and one Redis
 * prefix: every periodic job runs once per period for the three of them, not three times, and keeps
 * running when one of them is killed; a restart neither runs the hourly job again nor loses the record.
 */
describe('periodic jobs across three worker processes', () => {
  let databaseUrl: string;
  const prefix = testQueuePrefix();
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  let redis: Redis;
  const started: ChildProcess[] = [];

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await leftAfter(
      started.map((child) => child.pid!),
      10_000,
    );
    redis.disconnect();
    await deleteKeysOf(redisUrl, prefix);
    await dropTestDatabase(databaseUrl);
  });

  async function startWorker(): Promise<Worker> {
    const metricsPort = await freePort();
    const child = spawn(process.execPath, ['-r', '@swc-node/register', 'apps/api/src/worker.ts'], {
      cwd: ROOT,
      env: {
        ...process.env,
        NODE_ENV: 'test',
        LOG_LEVEL: 'error',
        DATABASE_URL: databaseUrl,
        REDIS_URL: redisUrl,
        QUEUE_PREFIX: prefix,
        WORKER_METRICS_PORT: String(metricsPort),
        // A killed worker's run is taken over a second later.
        QUEUE_LOCK_DURATION_MS: '1000',
        SHUTDOWN_TIMEOUT_MS: '5000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    started.push(child);
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    while (!/^Queue workers running/m.test(out) && child.exitCode === null) await sleep(100);
    if (child.exitCode !== null) throw new Error(`the worker exited while starting:\n${out}`);
    return { child, metricsPort };
  }

  const scrape = async ({ metricsPort }: Worker): Promise<string> => (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  /** Runs recorded for the deployment, by job. */
  const runs = async (): Promise<Record<string, number>> =>
    Object.fromEntries(Object.entries(await redis.hgetall(`${prefix}:periodic:runs`)).map(([job, n]) => [job, Number(n)]));
  const lastRuns = async (): Promise<Record<string, { startedAt: number; by: string }>> =>
    Object.fromEntries(
      Object.entries(await redis.hgetall(`${prefix}:periodic:last-run`)).map(([job, json]) => [
        job,
        JSON.parse(json) as { startedAt: number; by: string },
      ]),
    );
  const between = (before: Record<string, number>, after: Record<string, number>) =>
    Object.fromEntries(Object.keys(PERIODS_MS).map((job) => [job, (after[job] ?? 0) - (before[job] ?? 0)]));

  /** Over `ms`, a job of period p runs about ms / p times: never three times that. */
  function expectOncePerPeriod(ran: Record<string, number>, ms: number): void {
    for (const [job, period] of Object.entries(PERIODS_MS)) {
      const periods = ms / period;
      // Two shared cores and three processes booting: a run may come late, never twice.
      expect({ job, atMost: ran[job] <= Math.ceil(periods) + 1 }).toEqual({ job, atMost: true });
      if (periods >= 5) expect({ job, atLeast: ran[job] >= Math.floor(periods * 0.6) }).toEqual({ job, atLeast: true });
    }
  }

  it('runs each job once per period with three workers, and on when one is killed or all restart', async () => {
    const workers = await Promise.all([startWorker(), startWorker(), startWorker()]);

    // Three processes upserted the schedulers: one run each so far of the hourly and 10-minute jobs.
    await sleep(1_000);
    const before = await runs();
    expect(before['transcripts.retention']).toBe(1);
    expect(before['audit.retention']).toBe(1);
    expect(before['events.retention']).toBe(1);
    expect(before['idempotency.cleanup']).toBe(1);

    await sleep(WINDOW_MS);
    const afterThree = await runs();
    expectOncePerPeriod(between(before, afterThree), WINDOW_MS);

    // Visible in each worker's metrics: the deployment's last runs, and this process's own runs, which
    // add up over the three to the runs recorded.
    const texts = await Promise.all(workers.map(scrape));
    const now = Date.now() / 1000;
    for (const text of texts) {
      const last = samples(text, 'periodic_job_last_run_timestamp_seconds');
      expect(Object.keys(last).sort()).toEqual(Object.keys(PERIODS_MS).sort());
      expect(now - last['sweep.settling-rooms']).toBeLessThan(3);
      expect(samples(text, 'periodic_job_period_seconds')).toEqual(
        Object.fromEntries(Object.entries(PERIODS_MS).map(([job, ms]) => [job, ms / 1000])),
      );
      expect(Object.keys(samples(text, 'periodic_job_last_duration_seconds')).sort()).toEqual(Object.keys(PERIODS_MS).sort());
    }
    const recorded = await runs();
    const counted = texts.map((text) => samples(text, 'periodic_job_runs_total', { outcome: 'ok' }));
    for (const job of ['transcripts.retention', 'idempotency.cleanup', 'sweep.outbox']) {
      expect({ job, n: counted.reduce((sum, c) => sum + (c[job] ?? 0), 0) }).toEqual({ job, n: recorded[job] });
    }

    // One worker killed (perhaps in the middle of a run): the other two keep the schedule.
    const [killed, ...kept] = workers;
    killed.child.kill('SIGKILL');
    await new Promise((resolve) => killed.child.once('exit', resolve));
    // The next 1 s sweep may wait for the others' longest block (10 s) if the killed one took its wake-up.
    const killedAt = await runs();
    const deadline = Date.now() + 15_000;
    while ((await runs())['sweep.settling-rooms'] === killedAt['sweep.settling-rooms'] && Date.now() < deadline) await sleep(100);
    const beforeKill = await runs();
    await sleep(WINDOW_MS);
    const afterKill = await runs();
    expectOncePerPeriod(between(beforeKill, afterKill), WINDOW_MS);
    const last = await lastRuns();
    expect(Date.now() - last['sweep.customer-webhook-deliveries'].startedAt).toBeLessThan(3_000);
    expect(last['sweep.settling-rooms'].by).not.toMatch(new RegExp(`:${killed.child.pid}$`));

    // Every process restarted: the schedule and the record are in Redis, so the hourly and 10-minute
    // jobs do not run again, and the sweeps go on.
    for (const { child } of kept) child.kill('SIGTERM');
    expect(
      await leftAfter(
        kept.map(({ child }) => child.pid!),
        10_000,
      ),
    ).toEqual([]);
    const restarted = await startWorker();
    const beforeRestart = await runs();
    await sleep(3_000);
    const afterRestart = await runs();
    expect(afterRestart['transcripts.retention']).toBe(1);
    expect(afterRestart['idempotency.cleanup']).toBe(1);
    expect(afterRestart['sweep.settling-rooms'] - beforeRestart['sweep.settling-rooms']).toBeGreaterThanOrEqual(1);
    expect(samples(await scrape(restarted), 'periodic_job_last_run_timestamp_seconds')['transcripts.retention']).toBeCloseTo(
      last['transcripts.retention'].startedAt / 1000,
      3,
    );
    restarted.child.kill('SIGTERM');
  }, 180_000);
});
