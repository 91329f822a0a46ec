import { Injectable } from '@nestjs/common';
import { Database } from '../../database/database';
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
const INSERT = `INSERT INTO inbound_events (provider, event_id, event_type, payload)
  SELECT provider, event_id, event_type, payload
    FROM unnest($1::text[], $2::text[], $3::text[], $4::jsonb[]) WITH ORDINALITY AS e(provider, event_id, event_type, payload, n)
   ORDER BY n
  ON CONFLICT DO NOTHING RETURNING provider`;
// Marking takes the rows' locks: a concurrent duplicate waits, then finds them processed.
const MARK_PROCESSED = `WITH marked AS (
    UPDATE inbound_events SET processed_at = now() WHERE provider = $1 AND event_id = ANY($2) AND processed_at IS NULL
    RETURNING payload, seq)
  SELECT payload FROM marked ORDER BY seq`;
const UNPROCESSED = `SELECT provider, event_id, CASE WHEN provider = 'livekit' THEN payload->'room'->>'name' END AS subject, seq
   FROM inbound_events WHERE processed_at IS NULL AND received_at < now() - make_interval(secs => $1) ORDER BY seq LIMIT $2`;

/** `inbound_events`: LiveKit and Stripe events, stored by their id before they are answered, applied once. */
@Injectable()
export class InboundEventsRepository {
  constructor(private readonly database: Database) {}

  /** Stores the events in this order; the providers of those that were new (one per event, an event already stored not counted). */
  async insert(events: ReceivedEvent[], sql: Sql = this.database): Promise<Provider[]> {
    if (events.length === 0) return [];
    const rows = await sql.rows<{ provider: Provider }>(INSERT, [
      events.map((e) => e.provider),
      events.map((e) => e.eventId),
      events.map((e) => e.eventType),
      events.map((e) => JSON.stringify(e.payload)),
    ]);
    return rows.map((row) => row.provider);
  }

  /**
   * Marks those of the events not processed yet processed (in `tx`, which holds their rows until it
   * ends); their payloads, in the order they were stored.
   */
  async markProcessed(provider: Provider, eventIds: string[], tx: Sql): Promise<unknown[]> {
    const rows = await tx.rows<{ payload: unknown }>(MARK_PROCESSED, [provider, eventIds]);
    return rows.map((row) => row.payload);
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
