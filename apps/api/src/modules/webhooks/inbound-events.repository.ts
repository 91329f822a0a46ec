import { Injectable } from '@nestjs/common';
import { DatabaseClient } from '../../database/database.client';
import type { Sql } from '../../database/sql';

export type Provider = 'livekit' | 'stripe';

export interface ReceivedEvent {
  provider: Provider;
  eventId: string;
  eventType: string;
  subject: string | null;
  payload: unknown;
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
const INSERT = `INSERT INTO inbound_events (provider, event_id, event_type, subject, payload)
  SELECT provider, event_id, event_type, subject, payload
    FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::jsonb[]) WITH ORDINALITY AS e(provider, event_id, event_type, subject, payload, n)
   ORDER BY n
  ON CONFLICT DO NOTHING RETURNING provider`;
/**
 * Marks the events, and every event of the same subject stored before one of them and not applied
 * yet (left behind by an outage, say), so a subject's events apply in the order they were stored.
 * The rows are locked in `seq` order (two batches sharing rows never deadlock); a concurrent
 * duplicate waits, then finds them processed.
 */
const MARK_PROCESSED = `WITH given AS (
    SELECT event_id, seq, subject FROM inbound_events WHERE provider = $1 AND event_id = ANY($2) AND processed_at IS NULL),
  earlier AS (
    SELECT e.event_id, e.seq FROM (SELECT subject, max(seq) AS upto FROM given WHERE subject IS NOT NULL GROUP BY subject) g
      JOIN inbound_events e ON e.provider = $1 AND e.subject = g.subject AND e.seq < g.upto AND e.processed_at IS NULL),
  locked AS (
    SELECT e.event_id FROM inbound_events e
     WHERE e.provider = $1 AND e.event_id IN (SELECT event_id FROM given UNION SELECT event_id FROM earlier)
     ORDER BY e.seq FOR UPDATE),
  marked AS (
    UPDATE inbound_events e SET processed_at = now() FROM locked
     WHERE e.provider = $1 AND e.event_id = locked.event_id AND e.processed_at IS NULL
    RETURNING e.payload, e.seq)
  SELECT payload FROM marked ORDER BY seq`;
/** Whether an event of these subjects is stored and not applied yet. */
const UNAPPLIED_SUBJECTS = `SELECT DISTINCT subject FROM inbound_events WHERE provider = $1 AND subject = ANY($2) AND processed_at IS NULL`;
const UNPROCESSED = `SELECT provider, event_id, subject, seq
   FROM inbound_events WHERE processed_at IS NULL AND received_at < now() - make_interval(secs => $1) ORDER BY seq LIMIT $2`;

/** `inbound_events`: LiveKit and Stripe events, stored by their id before they are answered, applied once. */
@Injectable()
export class InboundEventsRepository {
  constructor(private readonly database: DatabaseClient) {}

  /** Stores the events in this order; the providers of those that were new (one per event, an event already stored not counted). */
  async insert(events: ReceivedEvent[], sql: Sql = this.database): Promise<Provider[]> {
    if (events.length === 0) return [];
    const rows = await sql.rows<{ provider: Provider }>(INSERT, [
      events.map((e) => e.provider),
      events.map((e) => e.eventId),
      events.map((e) => e.eventType),
      events.map((e) => e.subject),
      events.map((e) => JSON.stringify(e.payload)),
    ]);
    return rows.map((row) => row.provider);
  }

  /**
   * Marks those of the events not processed yet processed, with the unprocessed events of their
   * subjects stored before them (in `tx`, which holds their rows until it ends); their payloads, in
   * the order they were stored.
   */
  async markProcessed(provider: Provider, eventIds: string[], tx: Sql): Promise<unknown[]> {
    const rows = await tx.rows<{ payload: unknown }>(MARK_PROCESSED, [provider, eventIds]);
    return rows.map((row) => row.payload);
  }

  /** Those of these subjects that have an event stored and not applied yet. */
  async subjectsWithUnapplied(provider: Provider, subjects: string[], sql: Sql = this.database): Promise<Set<string>> {
    if (subjects.length === 0) return new Set();
    const rows = await sql.rows<{ subject: string }>(UNAPPLIED_SUBJECTS, [provider, subjects]);
    return new Set(rows.map((row) => row.subject));
  }

  /** Events stored longer ago than `olderThanMs` and still not applied, oldest first. */
  async unprocessed(olderThanMs: number, limit: number, sql: Sql = this.database): Promise<UnprocessedEvent[]> {
    const rows = await sql.rows<{ provider: Provider; event_id: string; subject: string | null; seq: number }>(UNPROCESSED, [
      olderThanMs / 1000,
      limit,
    ]);
    return rows.map((row) => ({ provider: row.provider, eventId: row.event_id, subject: row.subject, seq: row.seq }));
  }
}
