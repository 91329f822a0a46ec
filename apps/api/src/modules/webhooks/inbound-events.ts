import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { QueueName, StoredEventRef, StoredEventsJob } from '@app/contracts';
import { Coalescer } from '../../common/batching/coalescer';
import { QueueRegistry } from '../../queue/queue-registry';
import { Metrics } from '../../common/metrics/metrics';
import { Database } from '../../database/database';
import type { Sql } from '../../database/sql';

export type Provider = 'livekit' | 'stripe';

const QUEUE_OF: Record<Provider, QueueName> = { livekit: 'livekit-events', stripe: 'stripe-events' };

export interface ReceivedEvent {
  provider: Provider;
  eventId: string;
  eventType: string;
  subject: string | null;
  payload: unknown;
}

/**
 * Inbound webhook events: stored by their id before we answer 2xx, then applied from a queue.
 * Applying marks the event processed in the same transaction, so it takes effect exactly once.
 * Deliveries that arrive together are stored with one insert and enqueued as one job.
 */
const REQUEUE_AFTER_MS = 15_000;
const JOB_OPTIONS = { attempts: 10, backoff: { type: 'exponential', delay: 500 } } as const;

@Injectable()
export class InboundEvents implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(InboundEvents.name);
  private timer: NodeJS.Timeout | null = null;
  private readonly storing = new Coalescer<ReceivedEvent>((events) => this.storeAll(events), { maxBatch: 200, parallel: 2 });

  constructor(
    private readonly database: Database,
    private readonly queues: QueueRegistry,
    private readonly metrics: Metrics,
  ) {}

  /** Resolves once the event is durably stored (and queued, unless Redis is unavailable). */
  store(event: ReceivedEvent): Promise<void> {
    return this.storing.submit(event);
  }

  private async storeAll(events: ReceivedEvent[]): Promise<void> {
    const stored = (await this.database.rows(
      `INSERT INTO inbound_events (provider, event_id, event_type, payload)
       SELECT provider, event_id, event_type, payload
         FROM unnest($1::text[], $2::text[], $3::text[], $4::jsonb[]) WITH ORDINALITY AS e(provider, event_id, event_type, payload, n)
        ORDER BY n
       ON CONFLICT DO NOTHING RETURNING provider`,
      [
        events.map((e) => e.provider),
        events.map((e) => e.eventId),
        events.map((e) => e.eventType),
        events.map((e) => JSON.stringify(e.payload)),
      ],
    )) as { provider: Provider }[];
    for (const row of stored) this.metrics.inboundEvents.inc({ provider: row.provider, outcome: 'stored' });
    // Stored is accepted: if Redis cannot take the job now, the requeue sweep enqueues the events
    // once it is back, so the sender gets its 2xx and does not send them again.
    try {
      for (const provider of new Set(events.map((e) => e.provider))) {
        await this.enqueue(
          provider,
          events.filter((e) => e.provider === provider).map((e) => ({ id: e.eventId, subject: e.subject })),
        );
      }
    } catch (error) {
      this.logger.warn(`Stored events left for the requeue sweep: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** One job for these events; applying is idempotent, so a job enqueued twice changes nothing. */
  async enqueue(provider: Provider, events: StoredEventRef[]): Promise<void> {
    const job: StoredEventsJob = { events };
    await this.queues.add(QUEUE_OF[provider], provider, job, JOB_OPTIONS);
  }

  /** Runs `apply` in a transaction holding the event's row; a processed event is skipped. */
  async applyOnce(provider: Provider, eventId: string, apply: (tx: Sql, payload: unknown) => Promise<void>): Promise<boolean> {
    return this.applyEach(provider, [eventId], (tx, payloads) => apply(tx, payloads[0]));
  }

  /**
   * Runs `apply` with the payloads of those of `eventIds` not yet processed, in one transaction that
   * marks them processed (in the order they were received); returns false when none was left.
   */
  async applyEach(provider: Provider, eventIds: string[], apply: (tx: Sql, payloads: unknown[]) => Promise<void>): Promise<boolean> {
    let applied = 0;
    const done = this.database.transaction(async (tx) => {
      // Marking first takes the rows' locks: a concurrent duplicate waits, then finds them processed.
      // If applying fails, the transaction rolls back and the events are unmarked again.
      const rows = (await tx.rows(
        `UPDATE inbound_events SET processed_at = now() WHERE provider = $1 AND event_id = ANY($2) AND processed_at IS NULL
         RETURNING payload, seq`,
        [provider, eventIds],
      )) as { payload: unknown; seq: number | string }[];
      if (rows.length === 0) return false;
      rows.sort((a, b) => Number(a.seq) - Number(b.seq));
      await apply(
        tx,
        rows.map((row) => row.payload),
      );
      applied = rows.length;
      return true;
    });
    try {
      const result = await done;
      if (applied > 0) this.metrics.inboundEvents.inc({ provider, outcome: 'applied' }, applied);
      return result;
    } catch (error) {
      this.metrics.inboundEvents.inc({ provider, outcome: 'failed' }, eventIds.length);
      throw error;
    }
  }

  /** Events stored but never applied (a crash between storing and enqueuing): enqueue them again. */
  async requeueStale(olderThanMs: number): Promise<number> {
    const rows = (await this.database.rows(
      `SELECT provider, event_id, CASE WHEN provider = 'livekit' THEN payload->'room'->>'name' END AS subject
         FROM inbound_events WHERE processed_at IS NULL AND received_at < now() - make_interval(secs => $1) ORDER BY seq LIMIT 1000`,
      [olderThanMs / 1000],
    )) as { provider: Provider; event_id: string; subject: string | null }[];
    for (const provider of new Set(rows.map((row) => row.provider))) {
      await this.enqueue(
        provider,
        rows.filter((row) => row.provider === provider).map((row) => ({ id: row.event_id, subject: row.subject })),
      );
    }
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
