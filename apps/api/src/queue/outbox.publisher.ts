import { Injectable, Logger } from '@nestjs/common';
import type { Tx } from '../database/sql';
import { DurableQueueService, type DurableSource } from './durable-queue.service';
import { OutboxRepository, type OutboxJob } from './outbox.repository';
import { DatabaseClient } from '../database/database.client';

export type { OutboxJob } from './outbox.repository';

/** Jobs the sweeper enqueues at most per sweep. */
const SWEEP_BATCH = 500;

/**
 * Transactional outbox: a job decided inside a transaction is written with it, and enqueued only
 * after commit. It is a source of the durable queue, whose sweeper enqueues (every 5 s) whatever a
 * crash left behind; BullMQ's jobId makes repeats no-ops.
 */
@Injectable()
export class OutboxPublisher {
  private readonly logger = new Logger(OutboxPublisher.name);
  private readonly source: DurableSource;

  constructor(
    private readonly jobs: OutboxRepository,
    private readonly database: DatabaseClient,
    private readonly durable: DurableQueueService,
  ) {
    this.source = {
      name: 'outbox',
      sweepEveryMs: 5_000,
      due: () => this.jobs.pending(SWEEP_BATCH),
      enqueued: async (enqueued) => {
        await this.database.oneStatement((tx) =>
          this.jobs.markEnqueued(
            enqueued.map((job) => job.jobId),
            tx,
          ),
        );
      },
    };
    durable.register(this.source);
  }

  async write(tx: Tx, jobs: OutboxJob[]): Promise<void> {
    await this.jobs.insert(jobs, tx);
  }

  /**
   * Call after the transaction that wrote `jobs` committed. What was decided is already durable, so
   * a Redis or database failure here does not fail the caller: the sweeper enqueues the rest.
   */
  async flush(jobs: OutboxJob[]): Promise<void> {
    try {
      await this.durable.enqueue(jobs, this.source);
    } catch (error) {
      this.logger.warn(`Outbox jobs left for the sweeper: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** Enqueues jobs written but never enqueued (what the sweeper does); how many. */
  async sweep(): Promise<number> {
    return this.durable.sweep(this.source);
  }
}
