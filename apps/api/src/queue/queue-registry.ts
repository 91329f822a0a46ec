import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { API_CONSUMED_QUEUES, type QueueName } from '@app/contracts';
import { Queue, Worker, type JobsOptions, type Processor, type WorkerOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/app-config';
import { createRedisConnection } from './redis-connection';

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
    this.connection = createRedisConnection(config.redisUrl, 'api');
  }

  get redis(): Redis {
    return this.connection;
  }

  queue<T = unknown>(name: QueueName): Queue<T> {
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new Queue(name, { connection: this.connection, prefix: this.config.queuePrefix });
      this.queues.set(name, queue);
    }
    return queue as Queue<T>;
  }

  async add<T>(name: QueueName, jobName: string, data: T, options: JobsOptions = {}): Promise<void> {
    await this.queue<T>(name).add(jobName as never, data as never, { removeOnComplete: 1000, removeOnFail: 5000, ...options });
  }

  /** Registers the one handler of a queue; a second handler for the same queue is a boot error. */
  process<T>(name: QueueName, processor: Processor<T>, options: Partial<WorkerOptions> = {}): void {
    if (this.workers.has(name) || this.handled.has(name)) throw new Error(`Queue "${name}" has two handlers`);
    this.handled.add(name);
    if (!this.config.queue.runWorkers) return;
    const connection = this.connection.duplicate();
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
    await Promise.all([...this.workers.values()].map((worker) => worker.close(!redisUp)));
    await Promise.all([...this.queues.values()].map((queue) => queue.close()));
    await Promise.all(
      [this.connection, ...this.workerConnections].map((c) => (redisUp ? c.quit().catch(() => undefined) : c.disconnect())),
    );
  }
}
