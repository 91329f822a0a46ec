import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { QueueName } from '@app/contracts';
import { DataSource, type EntityManager } from 'typeorm';
import { QueueRegistry } from '../../queue/queue-registry';

export type Provider = 'livekit' | 'stripe';

const QUEUE_OF: Record<Provider, QueueName> = { livekit: 'livekit-events', stripe: 'stripe-events' };

/**
 * Inbound webhook events: stored by their id before we answer 2xx, then applied from a queue.
 * Applying marks the event processed in the same transaction, so it takes effect exactly once.
 */
const REQUEUE_AFTER_MS = 15_000;

@Injectable()
export class InboundEvents implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(InboundEvents.name);
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly dataSource: DataSource,
    private readonly queues: QueueRegistry,
  ) {}

  async store(provider: Provider, eventId: string, eventType: string, payload: unknown): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO inbound_events (provider, event_id, event_type, payload) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
      [provider, eventId, eventType, JSON.stringify(payload)],
    );
    await this.enqueue(provider, eventId);
  }

  async enqueue(provider: Provider, eventId: string): Promise<void> {
    await this.queues.add(
      QUEUE_OF[provider],
      provider,
      { eventId },
      { jobId: `${provider}.${eventId}`, attempts: 10, backoff: { type: 'exponential', delay: 500 } },
    );
  }

  /** Runs `apply` in a transaction holding the event's row; a processed event is skipped. */
  async applyOnce(provider: Provider, eventId: string, apply: (tx: EntityManager, payload: unknown) => Promise<void>): Promise<boolean> {
    return this.dataSource.transaction(async (tx) => {
      // Marking first takes the row's lock: a concurrent duplicate waits, then finds it processed.
      // If applying fails, the transaction rolls back and the event is unmarked again.
      const [rows] = (await tx.query(
        `UPDATE inbound_events SET processed_at = now() WHERE provider = $1 AND event_id = $2 AND processed_at IS NULL RETURNING payload`,
        [provider, eventId],
      )) as [{ payload: unknown }[], number];
      if (rows.length === 0) return false;
      await apply(tx, rows[0].payload);
      return true;
    });
  }

  /** Events stored but never applied (a crash between storing and enqueuing): enqueue them again. */
  async requeueStale(olderThanMs: number): Promise<number> {
    const rows = (await this.dataSource.query(
      `SELECT provider, event_id FROM inbound_events WHERE processed_at IS NULL AND received_at < now() - make_interval(secs => $1) ORDER BY received_at LIMIT 1000`,
      [olderThanMs / 1000],
    )) as { provider: Provider; event_id: string }[];
    for (const row of rows) await this.enqueue(row.provider, row.event_id);
    return rows.length;
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      this.requeueStale(REQUEUE_AFTER_MS).catch((error: Error) => this.logger.warn(`Requeue of stored events failed: ${error.message}`));
    }, REQUEUE_AFTER_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
