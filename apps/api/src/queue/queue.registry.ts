import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { API_CONSUMED_QUEUES, type QueueName } from '@app/contracts';
import { Queue, Worker, type JobSchedulerTemplateOptions, type JobsOptions, type Processor, type WorkerOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/app-config';
import { REDIS_UNAVAILABLE, ServiceUnavailableError } from '../common/errors/service-unavailable';
import { createRequestRedisConnection, workerRedisConnection } from '../common/redis/redis-connection';

export const CONSUMED_QUEUES = Symbol('CONSUMED_QUEUES');

/**
 * Owns every BullMQ queue and worker of the process over one shared Redis connection.
 * Shutdown closes workers first (letting running jobs finish), then queues, then the connection.
 */
@Injectable()
export class QueueRegistry implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(QueueRegistry.name);
  private readonly connection: Redis;
  private readonly queues = new Map<QueueName, Queue>();
  private readonly workers = new Map<QueueName, Worker>();
  private readonly workerConnections: Redis[] = [];
  private readonly handled = new Set<QueueName>();

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.connection = createRequestRedisConnection(config.redisUrl, 'api', config.timeouts.redisCommandMs);
    // ioredis reports every failed reconnection attempt: one line when Redis goes away, one when it is back.
    let down = false;
    this.connection.on('error', (error: Error) => {
      if (down) return;
      down = true;
      this.logger.warn(`Redis is unreachable: ${error.message}`);
    });
    this.connection.on('ready', () => {
      if (down) this.logger.log('Redis is reachable again');
      down = false;
    });
  }

  get redis(): Redis {
    return this.connection;
  }

  queue<T = unknown>(name: QueueName): Queue<T> {
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new Queue(name, { connection: this.connection, prefix: this.config.queuePrefix });
      queue.on('error', () => undefined); // the connection's own listener logs the outage
      this.queues.set(name, queue);
    }
    return queue as Queue<T>;
  }

  /**
   * Enqueues within the Redis command timeout or throws the 503 of an unavailable Redis: at once while
   * the connection is lost (a BullMQ queue would wait for it to come back), else when Redis does not
   * answer in time (also while the first connection is still being made).
   */
  async add<T>(name: QueueName, jobName: string, data: T, options: JobsOptions = {}): Promise<void> {
    if (['reconnecting', 'close', 'end'].includes(this.connection.status)) {
      throw new ServiceUnavailableError('redis', REDIS_UNAVAILABLE, { cause: new Error(`Redis connection is ${this.connection.status}`) });
    }
    const queue = this.queue<T>(name);
    try {
      await this.withinDeadline(queue.add(jobName as never, data as never, { removeOnComplete: 1000, removeOnFail: 5000, ...options }));
    } catch (error) {
      // While Redis is away a queue waits for it; a queue that fails with Redis there may have failed
      // its own start (which BullMQ never retries): the next add starts a fresh one.
      if (this.connection.status === 'ready' && this.queues.get(name) === queue) {
        this.queues.delete(name);
        void queue.close().catch(() => undefined);
      }
      throw new ServiceUnavailableError('redis', REDIS_UNAVAILABLE, { cause: error });
    }
  }

  /**
   * Creates or updates the job scheduler `id` of the queue: a job named `id` every `everyMs`, the first
   * at once. Any number of processes may call it with the same id and period: the scheduler stays one,
   * with one job per period (BullMQ keeps its next job and replaces it in place). Throws when Redis does
   * not answer within the command timeout.
   */
  async schedule(name: QueueName, id: string, everyMs: number, options: JobSchedulerTemplateOptions = {}): Promise<void> {
    await this.withinDeadline(this.queue(name).upsertJobScheduler(id, { every: everyMs }, { name: id, data: {}, opts: options }));
  }

  private async withinDeadline<T>(command: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('Command timed out')), this.config.timeouts.redisCommandMs);
    });
    try {
      return await Promise.race([command, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Registers the one handler of a queue; a second handler for the same queue is a boot error. */
  process<T>(name: QueueName, processor: Processor<T>, options: Partial<WorkerOptions> = {}): void {
    if (this.workers.has(name) || this.handled.has(name)) throw new Error(`Queue "${name}" has two handlers`);
    this.handled.add(name);
    if (!this.config.queue.runWorkers) return;
    const connection = workerRedisConnection(this.connection);
    // A lost connection must never reach the process as an unhandled 'error': the request
    // connection's listener logs the outage once, BullMQ reconnects, and a job it broke runs again.
    connection.on('error', () => undefined);
    this.workerConnections.push(connection);
    const worker = new Worker<T>(name, processor, {
      connection,
      prefix: this.config.queuePrefix,
      concurrency: this.config.queue.concurrency,
      // A worker that dies mid-job loses its lock after this long; the job then runs again elsewhere.
      lockDuration: this.config.queue.lockDurationMs,
      stalledInterval: this.config.queue.lockDurationMs,
      ...options,
    });
    worker.on('failed', (job, error) => this.logger.warn(`Job ${job?.id ?? '?'} on ${name} failed: ${error.message}`));
    worker.on('error', (error) => this.logger.error(`Worker ${name}: ${error.message}`));
    this.workers.set(name, worker as Worker);
  }

  onApplicationBootstrap(): void {
    const missing = API_CONSUMED_QUEUES.filter((name) => !this.handled.has(name));
    if (missing.length > 0) throw new Error(`Queues without a handler: ${missing.join(', ')}`);
  }

  async onApplicationShutdown(): Promise<void> {
    // With Redis gone nothing can be handed back: running jobs are abandoned (their locks expire and
    // they run again elsewhere) and the connections dropped, instead of waiting for a reconnect.
    const redisUp = this.connection.status === 'ready';
    if (!redisUp) for (const c of [this.connection, ...this.workerConnections]) c.disconnect();
    // A BullMQ connection closed while it is still starting drops its listeners, then reports the start
    // it abandoned as an 'error' nobody hears (an uncaught exception): let the starts finish first,
    // for at most a second (a process stopped right after it started, as tests and deploys do).
    if (redisUp)
      await settledWithin(
        [...this.workers.values(), ...this.queues.values()].map((q) => q.waitUntilReady()),
        1000,
      );
    await Promise.all([...this.workers.values()].map((worker) => worker.close(!redisUp)));
    await Promise.all([...this.queues.values()].map((queue) => queue.close()));
    await Promise.all(
      [this.connection, ...this.workerConnections].map((c) => (redisUp ? c.quit().catch(() => undefined) : c.disconnect())),
    );
  }
}

/** Resolves once every promise has settled, or after `ms`, whichever comes first. */
async function settledWithin(promises: Promise<unknown>[], ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  await Promise.race([Promise.allSettled(promises), deadline]);
  clearTimeout(timer);
}
