import { Injectable, Logger } from '@nestjs/common';
import type { QueueName, StoredEventRef, StoredEventsJob } from '@app/contracts';
import { createHash } from 'node:crypto';
import { Coalescer } from '../../common/batching/coalescer';
import { DurableQueueService, type DurableJob, type DurableSource } from '../../queue/durable-queue.service';
import { MetricsRegistry } from '../../common/metrics/metrics.registry';
import { DatabaseClient } from '../../database/database.client';
import type { Sql, Tx } from '../../database/sql';
import { isStorableText, withinJsonLimits } from '../../common/json/json-shape';
import { InboundEventsRepository, type Provider, type ReceivedEvent, type UnprocessedEvent } from './inbound-events.repository';

export type { Provider, ReceivedEvent } from './inbound-events.repository';

const QUEUE_OF: Record<Provider, QueueName> = { livekit: 'livekit-events', stripe: 'stripe-events' };

/** An event stored this long ago and still not applied is enqueued again (the sweep runs as often). */
const REQUEUE_AFTER_MS = 15_000;
/** Events the sweep enqueues at most at once. */
const REQUEUE_BATCH = 1000;
const JOB_OPTIONS = { attempts: 10, backoff: { type: 'exponential', delay: 500 } } as const;

/** How deeply a stored payload may nest (the providers' events are a few levels deep). */
export const MAX_PAYLOAD_DEPTH = 100;

/**
 * Whether a parsed payload can be stored as it came: PostgreSQL's jsonb holds neither U+0000 nor a
 * lone UTF-16 surrogate, in keys or values, and nothing deeper than MAX_PAYLOAD_DEPTH is taken.
 */
export function isStorablePayload(payload: unknown): boolean {
  return withinJsonLimits(payload, MAX_PAYLOAD_DEPTH, isStorableText);
}

/**
 * Inbound webhook events: stored by their id before we answer 2xx, then applied from a queue.
 * Applying marks the event processed in the same transaction, so it takes effect exactly once.
 * Deliveries that arrive together are stored with one insert and enqueued as one job. Stored events
 * are a source of the durable queue: its sweeper enqueues those still not applied 15 s later.
 */
@Injectable()
export class InboundEventsService {
  private readonly logger = new Logger(InboundEventsService.name);
  /**
   * One insert (and one job) at a time: the deliveries that arrive meanwhile form the next, so at
   * 1,000 events/s an insert and a job carry ~10 events instead of ~5 (two at a time), and the
   * statements, Redis commands and jobs per event halve for the API, PostgreSQL and the worker
   * (docs/performance-history.md, issue 28).
   */
  private readonly storing = new Coalescer<ReceivedEvent>((events) => this.storeAll(events), { maxBatch: 200, parallel: 1 });
  private readonly source: DurableSource;

  constructor(
    private readonly database: DatabaseClient,
    private readonly events: InboundEventsRepository,
    private readonly durable: DurableQueueService,
    private readonly metrics: MetricsRegistry,
  ) {
    this.source = {
      name: 'inbound-events',
      sweepEveryMs: REQUEUE_AFTER_MS,
      due: (now) => this.staleJobs(REQUEUE_AFTER_MS, now),
    };
    durable.register(this.source);
  }

  /** Resolves once the event is durably stored (and queued, unless Redis is unavailable). */
  store(event: ReceivedEvent): Promise<void> {
    return this.storing.submit(event);
  }

  private async storeAll(events: ReceivedEvent[]): Promise<void> {
    for (const provider of await this.database.oneStatement((tx) => this.events.insert(events, tx)))
      this.metrics.inboundEvents.inc({ provider, outcome: 'stored' });
    // Stored is accepted: if Redis cannot take the job now, the sweep enqueues the events once it is
    // back, so the sender gets its 2xx and does not send them again.
    try {
      await this.durable.enqueue(
        [...new Set(events.map((e) => e.provider))].map((provider) =>
          this.job(
            provider,
            events.filter((e) => e.provider === provider).map((e) => ({ id: e.eventId, subject: e.subject })),
          ),
        ),
      );
    } catch (error) {
      this.logger.warn(`Stored events left for the requeue sweep: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** One job for these events; applying is idempotent, so a job enqueued twice changes nothing. */
  async enqueue(provider: Provider, events: StoredEventRef[]): Promise<void> {
    await this.durable.enqueue([this.job(provider, events)]);
  }

  /** Runs `apply` in a transaction holding the event's row; a processed event is skipped. */
  async applyOnce(provider: Provider, eventId: string, apply: (tx: Tx, payload: unknown) => Promise<void>): Promise<boolean> {
    return this.applyEach(provider, [eventId], (tx, payloads) => apply(tx, payloads[0]));
  }

  /**
   * Runs `apply` with the payloads of those of `eventIds` not yet processed, and of the unprocessed
   * events of their subjects stored before them, in one transaction that marks them processed (in the
   * order they were stored); returns false when none was left.
   */
  async applyEach(provider: Provider, eventIds: string[], apply: (tx: Tx, payloads: unknown[]) => Promise<void>): Promise<boolean> {
    let applied = 0;
    const done = this.database.transaction(async (tx) => {
      // Marking first takes the rows' locks: a concurrent duplicate waits, then finds them processed.
      // If applying fails, the transaction rolls back and the events are unmarked again.
      const payloads = await this.events.markProcessed(provider, eventIds, tx);
      if (payloads.length === 0) return false;
      await apply(tx, payloads);
      applied = payloads.length;
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

  /** Those of these subjects (LiveKit: room names) with an event stored and not applied yet. */
  async subjectsWithUnapplied(provider: Provider, subjects: string[], sql?: Sql): Promise<Set<string>> {
    return this.events.subjectsWithUnapplied(provider, subjects, sql);
  }

  /**
   * One job per provider for its stale events. The id names the events and the sweep's round, so
   * processes sweeping in the same round enqueue it once, and a later round enqueues it again
   * (its job may have failed for good while the database was away).
   */
  private async staleJobs(olderThanMs: number, now: number): Promise<DurableJob[]> {
    const stale = await this.events.unprocessed(olderThanMs, REQUEUE_BATCH);
    const round = Math.floor(now / REQUEUE_AFTER_MS);
    return [...new Set(stale.map((event) => event.provider))].map((provider) => {
      const events: UnprocessedEvent[] = stale.filter((event) => event.provider === provider);
      const span = `${events[0].seq}-${events[events.length - 1].seq}`;
      return this.job(
        provider,
        events.map((event) => ({ id: event.eventId, subject: event.subject })),
        `${provider}.stale.${round}.${span}`,
      );
    });
  }

  /** The job applying `events`; its id (unless given) is derived from theirs. */
  private job(provider: Provider, events: StoredEventRef[], jobId?: string): DurableJob {
    const payload: StoredEventsJob = { events };
    const digest = createHash('sha1')
      .update(events.map((event) => event.id).join('\n'))
      .digest('hex');
    return { queue: QUEUE_OF[provider], name: provider, jobId: jobId ?? `${provider}.${digest}`, payload, options: JOB_OPTIONS };
  }
}
