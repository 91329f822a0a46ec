import { Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import type { QueueName } from '@app/contracts';
import type { JobsOptions } from 'bullmq';
import { NotificationsClient, type Listener } from '../database/notifications.client';
import { PeriodicJobsScheduler } from './periodic-jobs.scheduler';
import { QueueRegistry } from './queue.registry';

/** A job that rows in PostgreSQL stand for. */
export interface DurableJob {
  queue: QueueName;
  name: string;
  /** Deterministic: the same rows give the same id, so enqueuing them twice while the job is there is a no-op. */
  jobId: string;
  payload: object;
  options?: Omit<JobsOptions, 'jobId'>;
}

/**
 * Something that writes rows first and enqueues their jobs after commit (the outbox, stored inbound
 * events, due customer-webhook deliveries). It says which of its rows are due for a job (left behind
 * by a crash or an unreachable Redis, or come due since) and what the job is; the sweeper enqueues them.
 */
export interface DurableSource {
  /** Unique; names it in logs. */
  readonly name: string;
  /** How often it is swept: a periodic job `sweep.<name>`, one sweep per period for the whole deployment. */
  readonly sweepEveryMs: number;
  /**
   * A notification channel the writers' commits notify (`pg_notify`): each notification sweeps the
   * source at once, and it is swept whenever listening (re)starts, for what was committed meanwhile.
   */
  readonly channel?: string;
  /** The jobs of the rows due now; `now` is the sweep's time (ms since the epoch). */
  due(now: number): Promise<DurableJob[]>;
  /** These jobs are in their queues now (the outbox marks its rows). */
  enqueued?(jobs: DurableJob[]): Promise<void>;
  /** A notification arrived on `channel` (before the sweep it causes). */
  notified?(): void;
}

interface Swept {
  source: DurableSource;
  /** The sweep running now; it resolves to its error, if it failed. */
  running: Promise<unknown> | null;
  /** Asked for again while running: the sweep that follows it. */
  again: Promise<unknown> | null;
  listener: Listener | null;
}

/**
 * The one durable-enqueue path (docs/decisions.md "One durable-enqueue path"): rows are written in
 * the transaction of the change; after commit their jobs are enqueued (`enqueue`), and one sweeper
 * enqueues whatever a crash or an outage left behind, source by source, with the same deterministic
 * job ids, so enqueuing twice is a no-op. Each source is swept by a periodic job (`sweep.<name>`,
 * scheduled once for the deployment, run where the queue workers run) and, in the process that listens,
 * at once on its notifications. One shutdown: it stops before the queue workers close, and running
 * sweeps end first.
 */
@Injectable()
export class DurableQueueService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(DurableQueueService.name);
  private readonly sources = new Map<string, Swept>();
  private started = false;
  private stopped = false;

  constructor(
    private readonly queues: QueueRegistry,
    private readonly notifications: NotificationsClient,
    private readonly periodic: PeriodicJobsScheduler,
  ) {}

  /** Adds a source (from a constructor or `onModuleInit`; later, it starts at once). */
  register(source: DurableSource): void {
    if (this.sources.has(source.name)) throw new Error(`Durable source "${source.name}" is registered twice`);
    const swept: Swept = { source, running: null, again: null, listener: null };
    this.sources.set(source.name, swept);
    this.periodic.register({ name: `sweep.${source.name}`, everyMs: source.sweepEveryMs, run: () => this.sweepOnSchedule(swept) });
    if (this.started && !this.stopped) void this.listen(swept);
  }

  /** The process is shutting down: no sweep runs any more, and work fed by the sources stops taking more. */
  get stopping(): boolean {
    return this.stopped;
  }

  /**
   * Enqueues the jobs of rows already committed (all at once; each job's id makes a repeat a no-op)
   * and tells `from` which made it. Throws the first failure once every job was tried.
   */
  async enqueue(jobs: DurableJob[], from?: DurableSource): Promise<void> {
    if (jobs.length === 0) return;
    const results = await Promise.allSettled(
      jobs.map((job) => this.queues.add(job.queue, job.name, job.payload, { ...job.options, jobId: job.jobId })),
    );
    const done = jobs.filter((_, i) => results[i].status === 'fulfilled');
    if (done.length > 0 && from?.enqueued) await from.enqueued(done);
    const failed = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /** Enqueues what `source` has due now; how many jobs that was. */
  async sweep(source: DurableSource, now = Date.now()): Promise<number> {
    const jobs = await source.due(now);
    await this.enqueue(jobs, source);
    return jobs.length;
  }

  /** Sweeps every source once, one after the other; how many jobs each enqueued. */
  async sweepAll(now = Date.now()): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    for (const { source } of this.sources.values()) counts[source.name] = await this.sweep(source, now);
    return counts;
  }

  /** Starts the listeners (the periodic sweeps are the periodic jobs'). */
  async start(): Promise<void> {
    if (this.started || this.stopped) return;
    this.started = true;
    await Promise.all([...this.sources.values()].map((swept) => this.listen(swept)));
  }

  /** Stops the listeners, then waits for running sweeps. No sweep starts afterwards. */
  async close(): Promise<void> {
    this.stopped = true;
    const all = [...this.sources.values()];
    await Promise.all(all.map((swept) => swept.listener?.close()));
    await Promise.all(all.flatMap((swept) => [swept.running, swept.again]));
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.start();
  }

  /** Before the queue workers and Redis close (their `onApplicationShutdown`), so a running sweep still reaches Redis. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.close();
  }

  private async listen(swept: Swept): Promise<void> {
    const { channel } = swept.source;
    if (!channel) return;
    swept.listener = await this.notifications.listen(channel, {
      onNotification: () => {
        swept.source.notified?.();
        void this.trigger(swept);
      },
      onListening: () => void this.trigger(swept),
    });
    if (this.stopped) await swept.listener.close();
  }

  /** The periodic job's run: a sweep (after the one running, if any); fails when it failed. */
  private async sweepOnSchedule(swept: Swept): Promise<void> {
    const error = await this.trigger(swept);
    if (error !== undefined) throw error;
  }

  /**
   * Sweeps the source now, or once more right after its running sweep (which may have read before the
   * change that asks); resolves when that sweep ended, to its error if it failed.
   */
  private trigger(swept: Swept): Promise<unknown> {
    if (this.stopped) return Promise.resolve(undefined);
    if (swept.running) {
      swept.again ??= swept.running.then(() => {
        swept.again = null;
        return this.trigger(swept);
      });
      return swept.again;
    }
    const running = this.sweep(swept.source).then(
      () => undefined,
      (error: unknown) => {
        this.logger.warn(`Sweep of ${swept.source.name} failed: ${error instanceof Error ? error.message : String(error)}`);
        return error ?? new Error('failed');
      },
    );
    swept.running = running.finally(() => {
      swept.running = null;
    });
    return swept.running;
  }
}
