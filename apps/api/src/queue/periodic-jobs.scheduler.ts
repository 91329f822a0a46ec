import { QUEUES } from '@app/contracts';
import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap, type OnModuleInit } from '@nestjs/common';
import { DelayedError, type Job } from 'bullmq';
import { hostname } from 'node:os';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { MetricsRegistry } from '../common/metrics/metrics.registry';
import { QueueRegistry } from './queue.registry';

/** Work done on a schedule (a sweep, a retention, a cleanup): once per period for the whole deployment. */
export interface PeriodicJob {
  /** Unique: the job scheduler's id and the `job` label of the metrics. */
  readonly name: string;
  /** How often it runs, across any number of processes. */
  readonly everyMs: number;
  run(): Promise<unknown>;
}

/** The last run of a job anywhere in the deployment, as recorded in Redis. */
export interface LastRun {
  job: string;
  /** When it started, ms since the epoch. */
  startedAt: number;
  durationMs: number;
  outcome: 'ok' | 'failed';
  /** `host:pid` of the process that ran it. */
  by: string;
  /** Runs recorded since the record began (it outlives restarts of the processes, not a flush of Redis). */
  runs: number;
}

/** A failed upsert (Redis answered, but not in time) is tried again this much later. */
const RESCHEDULE_AFTER_MS = 5_000;
/** A run that reaches a process shutting down is handed back for another process, this much later. */
const HAND_BACK_MS = 1_000;
/** Runs at once per process: every job can run beside the others (an hourly retention never holds up a sweep). */
const CONCURRENCY = 16;
/**
 * Seconds an idle worker waits for the queue before it looks again (BullMQ's default is 5). A worker
 * that stops or dies may take with it the wake-up of the next run; the others then find it this late.
 */
const DRAIN_DELAY_SECONDS = 1;
/** Finished runs are not kept in Redis; failed ones are, the last hundred. */
const JOB_OPTIONS = { removeOnComplete: true, removeOnFail: 100 } as const;

/**
 * The periodic work of the application, scheduled once for the whole deployment: each job is a BullMQ
 * job scheduler (id = the job's name) on the `periodic` queue. Every process upserts the schedulers of
 * the jobs it registers, at boot and whenever its Redis connection is ready again (upserting the same
 * id and period changes nothing, so N processes keep one scheduler, and a Redis that lost its data gets
 * them back); the processes that run the queue workers consume the queue, so each period's run happens
 * in one of them. BullMQ adds the next run when one starts, so a process killed mid-run does not stop
 * the schedule (its run is retried elsewhere once its lock expires). Each run is counted and timed in
 * the process's metrics, and recorded in Redis (last run, duration, outcome, count), which the metrics
 * read for `periodic_job_last_run_timestamp_seconds`.
 */
@Injectable()
export class PeriodicJobsScheduler implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(PeriodicJobsScheduler.name);
  private readonly jobs = new Map<string, PeriodicJob>();
  /** Runs in progress in this process, by job. */
  private readonly running = new Map<string, Promise<void>>();
  private started = false;
  private stopped = false;
  private retry: NodeJS.Timeout | null = null;
  private open!: () => void;
  /** Runs wait for the application to have booted (every job registered). */
  private readonly opened = new Promise<void>((resolve) => (this.open = resolve));
  private readonly by = `${hostname()}:${process.pid}`;
  private readonly onRedisReady = () => void this.schedule([...this.jobs.values()]);

  constructor(
    private readonly queues: QueueRegistry,
    private readonly metrics: MetricsRegistry,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Adds a job (from a constructor or `onModuleInit`; later, it is scheduled at once). */
  register(job: PeriodicJob): void {
    if (this.jobs.has(job.name)) throw new Error(`Periodic job "${job.name}" is registered twice`);
    if (!Number.isInteger(job.everyMs) || job.everyMs < 1) throw new Error(`Periodic job "${job.name}" needs a period in whole ms`);
    this.jobs.set(job.name, job);
    this.metrics.periodicPeriod.set({ job: job.name }, job.everyMs / 1000);
    if (this.started) void this.schedule([job]);
  }

  /** The jobs registered in this process, with their periods. */
  list(): { name: string; everyMs: number }[] {
    return [...this.jobs.values()].map(({ name, everyMs }) => ({ name, everyMs }));
  }

  onModuleInit(): void {
    this.queues.process<object>(QUEUES.periodic, (job, token) => this.handle(job, token), {
      concurrency: CONCURRENCY,
      drainDelay: DRAIN_DELAY_SECONDS,
    });
  }

  onApplicationBootstrap(): void {
    this.started = true;
    this.open();
    // At once if Redis is there, else when it is; again after each reconnection.
    this.queues.redis.on('ready', this.onRedisReady);
    void this.schedule([...this.jobs.values()]);
  }

  /** Before the queue workers and the database close: no run starts here any more, running ones end first. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.open();
    this.queues.redis.off('ready', this.onRedisReady);
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    await Promise.all([...this.running.values()].map((run) => run.catch(() => undefined)));
  }

  /** The last recorded run of each job that ran (anywhere in the deployment). */
  async lastRuns(): Promise<LastRun[]> {
    const [last, runs] = await Promise.all([this.queues.redis.hgetall(this.key('last-run')), this.queues.redis.hgetall(this.key('runs'))]);
    return Object.entries(last).map(([job, json]) => ({
      ...(JSON.parse(json) as Omit<LastRun, 'job' | 'runs'>),
      job,
      runs: Number(runs[job] ?? 0),
    }));
  }

  private key(what: 'last-run' | 'runs'): string {
    return `${this.config.queuePrefix}:periodic:${what}`;
  }

  private async schedule(jobs: PeriodicJob[]): Promise<void> {
    if (this.stopped || jobs.length === 0 || this.queues.redis.status !== 'ready') return;
    try {
      await Promise.all(jobs.map((job) => this.queues.schedule(QUEUES.periodic, job.name, job.everyMs, JOB_OPTIONS)));
    } catch (error) {
      this.logger.warn(`Scheduling periodic jobs failed: ${error instanceof Error ? error.message : String(error)}`);
      if (this.stopped || this.retry) return;
      this.retry = setTimeout(() => {
        this.retry = null;
        void this.schedule([...this.jobs.values()]);
      }, RESCHEDULE_AFTER_MS);
      this.retry.unref();
    }
  }

  private async handle(job: Job<object>, token?: string): Promise<void> {
    await this.opened;
    if (this.stopped) {
      // This process is stopping: another one takes the run rather than the period losing it.
      await job.moveToDelayed(Date.now() + HAND_BACK_MS, token);
      throw new DelayedError();
    }
    const periodic = this.jobs.get(job.name);
    if (!periodic) {
      this.logger.warn(`Periodic job "${job.name}" is not registered in this process: skipped`);
      return;
    }
    if (this.running.has(periodic.name)) {
      // Its previous run here outlasted the period: the next period's run follows it, not beside it.
      this.metrics.periodicRuns.inc({ job: periodic.name, outcome: 'skipped' });
      return;
    }
    const run = this.runOnce(periodic);
    this.running.set(periodic.name, run);
    try {
      await run;
    } finally {
      this.running.delete(periodic.name);
    }
  }

  private async runOnce(job: PeriodicJob): Promise<void> {
    const startedAt = Date.now();
    let outcome: LastRun['outcome'] = 'ok';
    try {
      await job.run();
    } catch (error) {
      outcome = 'failed';
      this.logger.warn(`Periodic job ${job.name} failed: ${error instanceof Error ? error.message : String(error)}`);
      throw error;
    } finally {
      const durationMs = Date.now() - startedAt;
      this.metrics.periodicRuns.inc({ job: job.name, outcome });
      this.metrics.periodicDuration.observe({ job: job.name }, durationMs / 1000);
      await this.record({ startedAt, durationMs, outcome, by: this.by }, job.name);
    }
  }

  /** Writes the run's record; a Redis failure only loses the record (the metrics of this process still have it). */
  private async record(run: Omit<LastRun, 'job' | 'runs'>, job: string): Promise<void> {
    try {
      await this.queues.redis.multi().hset(this.key('last-run'), job, JSON.stringify(run)).hincrby(this.key('runs'), job, 1).exec();
    } catch (error) {
      this.logger.warn(`Recording the run of ${job} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
