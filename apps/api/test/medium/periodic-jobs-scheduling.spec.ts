import { QUEUES } from '@app/contracts';
import { loadConfig, type AppConfig } from '../../src/config/app-config';
import { MetricsRegistry } from '../../src/common/metrics/metrics.registry';
import { PeriodicJobsScheduler, type PeriodicJob } from '../../src/queue/periodic-jobs.scheduler';
import { QueueRegistry } from '../../src/queue/queue.registry';
import { deleteKeysOf, testQueuePrefix } from '../support/redis-keys';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Process {
  registry: QueueRegistry;
  periodic: PeriodicJobsScheduler;
  metrics: MetricsRegistry;
}

/**
 * PeriodicJobsScheduler on the real Redis, several "processes" in one (each its own registry and connections)
 * on one queue prefix, as the application boots and stops them.
 */
describe('periodic jobs', () => {
  const prefix = testQueuePrefix();
  const started: Process[] = [];
  const configOf = (runWorkers: boolean): AppConfig =>
    loadConfig({ ...process.env, NODE_ENV: 'test', QUEUE_PREFIX: prefix, RUN_QUEUE_WORKERS: String(runWorkers) });

  afterAll(async () => {
    for (const p of started) await stop(p);
    await deleteKeysOf(configOf(true).redisUrl, prefix);
  });

  function start(jobs: PeriodicJob[], runWorkers = true): Process {
    const registry = new QueueRegistry(configOf(runWorkers));
    const metrics = new MetricsRegistry();
    const periodic = new PeriodicJobsScheduler(registry, metrics, configOf(runWorkers));
    for (const job of jobs) periodic.register(job);
    periodic.onModuleInit();
    periodic.onApplicationBootstrap();
    const p = { registry, periodic, metrics };
    started.push(p);
    return p;
  }
  async function stop(p: Process): Promise<void> {
    if (!started.includes(p)) return;
    started.splice(started.indexOf(p), 1);
    await p.periodic.beforeApplicationShutdown();
    await p.registry.onApplicationShutdown();
  }
  const counted = async (p: Process, job: string, outcome = 'ok'): Promise<number> =>
    (await p.metrics.periodicRuns.get()).values.find((v) => v.labels.job === job && v.labels.outcome === outcome)?.value ?? 0;

  it('runs a job once per period however many processes schedule it, and on when one stops', async () => {
    let runs = 0;
    const job = (): PeriodicJob => ({
      name: 'test.tick',
      everyMs: 500,
      run: async () => {
        runs += 1;
      },
    });
    // Three consuming processes and one that only schedules (RUN_QUEUE_WORKERS=false).
    const processes = [start([job()]), start([job()]), start([job()]), start([job()], false)];
    await sleep(300);
    const from = runs;
    await sleep(3_000);
    const ran = runs - from;
    expect(ran).toBeGreaterThanOrEqual(4);
    expect(ran).toBeLessThanOrEqual(8); // three timers would have made about 18
    expect(await counted(processes[3], 'test.tick')).toBe(0);
    // The processes' counts add up to the runs, which Redis recorded too.
    const sum = (await Promise.all(processes.map((p) => counted(p, 'test.tick')))).reduce((a, b) => a + b, 0);
    const [recorded] = await processes[0].periodic.lastRuns();
    expect(recorded).toMatchObject({ job: 'test.tick', outcome: 'ok', runs: sum });
    expect(sum).toBe(runs);

    // Two of the consumers stop: the third keeps the schedule.
    await stop(processes[0]);
    await stop(processes[1]);
    // (Its worker may wait up to BullMQ's longest block, 10 s, for a wake-up the stopped ones took.)
    const before = runs;
    const deadline = Date.now() + 15_000;
    while (runs < before + 3 && Date.now() < deadline) await sleep(50);
    expect(runs - before).toBeGreaterThanOrEqual(3);
    await processes[2].registry.queue(QUEUES.periodic).removeJobScheduler('test.tick');
    await stop(processes[2]);
    await stop(processes[3]);
  });

  it('records a failed run, and the next period runs again', async () => {
    let calls = 0;
    const p = start([
      {
        name: 'test.failing',
        everyMs: 400,
        run: async () => {
          calls += 1;
          if (calls === 1) throw new Error('boom');
        },
      },
    ]);
    const until = Date.now() + 5_000;
    while (calls < 2 && Date.now() < until) await sleep(50);
    await sleep(100);
    expect(await counted(p, 'test.failing', 'failed')).toBe(1);
    expect(await counted(p, 'test.failing', 'ok')).toBeGreaterThanOrEqual(1);
    const last = (await p.periodic.lastRuns()).find((run) => run.job === 'test.failing');
    expect(last).toMatchObject({ outcome: 'ok', runs: calls });
    expect((await p.metrics.periodicDuration.get()).values.some((v) => v.labels.job === 'test.failing')).toBe(true);
    await stop(p);
  });

  it('refuses a job registered twice or without a period', () => {
    const periodic = new PeriodicJobsScheduler({} as QueueRegistry, new MetricsRegistry(), configOf(true));
    const run = async () => undefined;
    periodic.register({ name: 'a', everyMs: 1000, run });
    expect(() => periodic.register({ name: 'a', everyMs: 1000, run })).toThrow('registered twice');
    expect(() => periodic.register({ name: 'b', everyMs: 0, run })).toThrow('period');
  });
});
