import { Injectable } from '@nestjs/common';
import { DatabaseClient } from '../../database/database.client';
import type { Sql, Tx } from '../../database/sql';
import { type Narrowed, prepared, sql, withNulls } from '../../database/typed-sql';
import type {
  IInsertQuery,
  IInsertResult,
  IMarkProcessedQuery,
  IUnappliedSubjectsQuery,
  IUnprocessedQuery,
  IUnprocessedResult,
} from './inbound-events.repository.types';

export type Provider = 'livekit' | 'stripe';

export interface ReceivedEvent {
  provider: Provider;
  eventId: string;
  eventType: string;
  subject: string | null;
  /** The event as it came, JSON text (isStorablePayload). */
  payloadJson: string;
}

/** An event stored and not applied yet. */
export interface UnprocessedEvent {
  provider: Provider;
  eventId: string;
  /** What orders it among others (a LiveKit event's room name). */
  subject: string | null;
  /** The order it was stored in. */
  seq: number;
}

// Events of the providers, before anything knows their organization: no statement here is scoped to one.
const INSERT = sql<IInsertQuery>`INSERT INTO inbound_events (provider, event_id, event_type, subject, payload)
  SELECT provider, event_id, event_type, subject, payload
    FROM unnest($providers!::text[], $eventIds!::text[], $eventTypes!::text[], $subjects!::text[], $payloads!::jsonb[])
      WITH ORDINALITY AS e(provider, event_id, event_type, subject, payload, n)
   ORDER BY n
  ON CONFLICT DO NOTHING RETURNING provider`;
/**
 * Marks the events, and every event of the same subject stored before one of them and not applied
 * yet (left behind by an outage, say), so a subject's events apply in the order they were stored.
 * The rows are locked in `seq` order (two batches sharing rows never deadlock); a concurrent
 * duplicate waits, then finds them processed.
 *
 * Every step is a lookup whatever the planner estimates (its statistics lag a burst of new events,
 * and a plan that scans the unapplied events grows with the backlog, docs/performance-history.md): the
 * given events by their key, id by id; their earlier events subject by subject, through the index's
 * subject and seq (joined as one, the planner scanned every unapplied event once per subject: 38 ms
 * and 100,000 buffers for a batch of 100 behind 1,000 unapplied events); `OFFSET 0` keeps it from
 * flattening a lateral subquery back into a join. The locked rows are updated by their physical
 * address (`ctid`, which cannot change while this transaction holds their lock): joined back by id,
 * the planner walked every unapplied event once per locked row (140 ms for a batch of 177 behind 772).
 */
const MARK_PROCESSED = sql<IMarkProcessedQuery>`WITH given AS (
    SELECT i.event_id, i.seq, i.subject FROM unnest($eventIds!::text[]) AS g(event_id)
      CROSS JOIN LATERAL (
        SELECT event_id, seq, subject FROM inbound_events
         WHERE provider = $provider! AND event_id = g.event_id AND processed_at IS NULL OFFSET 0) i),
  earlier AS (
    SELECT e.event_id, e.seq FROM (SELECT subject, max(seq) AS upto FROM given WHERE subject IS NOT NULL GROUP BY subject) g
      CROSS JOIN LATERAL (
        SELECT i.event_id, i.seq FROM inbound_events i
         WHERE i.provider = $provider! AND i.subject = g.subject AND i.seq < g.upto AND i.processed_at IS NULL OFFSET 0) e),
  locked AS MATERIALIZED (
    SELECT e.ctid AS row_id FROM inbound_events e
     WHERE e.provider = $provider! AND e.event_id IN (SELECT event_id FROM given UNION SELECT event_id FROM earlier)
     ORDER BY e.seq FOR UPDATE),
  marked AS (
    UPDATE inbound_events e SET processed_at = now()
     WHERE e.ctid = ANY(ARRAY(SELECT row_id FROM locked)) AND e.processed_at IS NULL
    RETURNING e.payload, e.seq)
  SELECT payload FROM marked ORDER BY seq`;
/** Whether an event of these subjects is stored and not applied yet. */
const UNAPPLIED_SUBJECTS = sql<IUnappliedSubjectsQuery>`SELECT DISTINCT subject AS "subject!"
   FROM inbound_events WHERE provider = $provider! AND subject = ANY($subjects!) AND processed_at IS NULL`;
const UNPROCESSED = sql<IUnprocessedQuery>`SELECT provider, event_id, subject, seq
   FROM inbound_events WHERE processed_at IS NULL AND received_at < now() - make_interval(secs => $olderThanSeconds!) ORDER BY seq LIMIT $limit!`;

// Run for every LiveKit event: parsed and planned once per connection (their plans are lookups whatever the estimates).
const INSERT_PREPARED = prepared('inbound_events_insert', INSERT);
const MARK_PROCESSED_PREPARED = prepared('inbound_events_mark_processed', MARK_PROCESSED);

// No CHECK limits `provider`, but only `insert` writes the table, from a Provider.
type InsertedRow = Narrowed<IInsertResult, { provider: Provider }>;
type UnprocessedRow = Narrowed<IUnprocessedResult, { provider: Provider }>;

/** `inbound_events`: LiveKit and Stripe events, stored by their id before they are answered, applied once. */
@Injectable()
export class InboundEventsRepository {
  constructor(private readonly database: DatabaseClient) {}

  /** Stores the events in this order; the providers of those that were new (one per event, an event already stored not counted). */
  async insert(events: ReceivedEvent[], tx: Tx): Promise<Provider[]> {
    if (events.length === 0) return [];
    const rows = await tx.rows<IInsertQuery, InsertedRow>(INSERT_PREPARED, {
      providers: events.map((e) => e.provider),
      eventIds: events.map((e) => e.eventId),
      eventTypes: events.map((e) => e.eventType),
      subjects: withNulls(events.map((e) => e.subject)),
      payloads: events.map((e) => e.payloadJson),
    });
    return rows.map((row) => row.provider);
  }

  /**
   * Marks those of the events not processed yet processed, with the unprocessed events of their
   * subjects stored before them (in `tx`, which holds their rows until it ends); their payloads, in
   * the order they were stored.
   */
  async markProcessed(provider: Provider, eventIds: string[], tx: Tx): Promise<unknown[]> {
    const rows = await tx.rows(MARK_PROCESSED_PREPARED, { provider, eventIds });
    return rows.map((row) => row.payload);
  }

  /** Those of these subjects that have an event stored and not applied yet. */
  async subjectsWithUnapplied(provider: Provider, subjects: string[], sql: Sql = this.database): Promise<Set<string>> {
    if (subjects.length === 0) return new Set();
    const rows = await sql.rows(UNAPPLIED_SUBJECTS, { provider, subjects });
    return new Set(rows.map((row) => row.subject));
  }

  /** Events stored longer ago than `olderThanMs` and still not applied, oldest first. */
  async unprocessed(olderThanMs: number, limit: number, sql: Sql = this.database): Promise<UnprocessedEvent[]> {
    const rows = await sql.rows<IUnprocessedQuery, UnprocessedRow>(UNPROCESSED, { olderThanSeconds: olderThanMs / 1000, limit });
    return rows.map((row) => ({ provider: row.provider, eventId: row.event_id, subject: row.subject, seq: row.seq }));
  }
}
