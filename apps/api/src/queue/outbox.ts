import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { QueueName } from '@app/contracts';
import { QueueRegistry } from './queue-registry';
import { Database } from '../database/database';
import type { Sql } from '../database/sql';

export interface OutboxJob {
  queue: QueueName;
  name: string;
  /** Deterministic: the same decision always has the same id, so enqueuing twice is a no-op. */
  jobId: string;
  payload: object;
}

const SWEEP_INTERVAL_MS = 5_000;

/**
 * Transactional outbox: a job decided inside a transaction is written with it, and enqueued only
 * after commit. A sweeper enqueues whatever a crash left behind; BullMQ's jobId makes repeats no-ops.
 */
@Injectable()
export class Outbox implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(Outbox.name);
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly database: Database,
    private readonly queues: QueueRegistry,
  ) {}

  async write(tx: Sql, jobs: OutboxJob[]): Promise<void> {
    for (const job of jobs) {
      await tx.rows(`INSERT INTO outbox_jobs (queue, job_name, job_id, payload) VALUES ($1, $2, $3, $4) ON CONFLICT (job_id) DO NOTHING`, [
        job.queue,
        job.name,
        job.jobId,
        JSON.stringify(job.payload),
      ]);
    }
  }

  /**
   * Call after the transaction that wrote `jobs` committed. What was decided is already durable, so
   * a Redis or database failure here does not fail the caller: the sweeper enqueues the rest.
   */
  async flush(jobs: OutboxJob[]): Promise<void> {
    try {
      await this.enqueue(jobs);
    } catch (error) {
      this.logger.warn(`Outbox jobs left for the sweeper: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  async sweep(): Promise<number> {
    const rows: { queue: QueueName; job_name: string; job_id: string; payload: object }[] = await this.database.rows(
      `SELECT queue, job_name, job_id, payload FROM outbox_jobs WHERE enqueued_at IS NULL ORDER BY id LIMIT 500`,
    );
    await this.enqueue(rows.map((r) => ({ queue: r.queue, name: r.job_name, jobId: r.job_id, payload: r.payload })));
    return rows.length;
  }

  private async enqueue(jobs: OutboxJob[]): Promise<void> {
    for (const job of jobs) {
      await this.queues.add(job.queue, job.name, job.payload, { jobId: job.jobId });
      await this.database.rows(`UPDATE outbox_jobs SET enqueued_at = now() WHERE job_id = $1`, [job.jobId]);
    }
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      this.sweep().catch((error: Error) => this.logger.warn(`Outbox sweep failed: ${error.message}`));
    }, SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
