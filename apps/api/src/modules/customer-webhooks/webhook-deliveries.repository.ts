import { Injectable } from '@nestjs/common';
import { DatabaseClient } from '../../database/database.client';
import type { Sql } from '../../database/sql';
import type { CustomerEventType } from './event-types';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/** A delivery as its endpoint's log shows it. */
export interface DeliveryRow {
  id: string;
  /** The `webhook-id` header, the same on every attempt. */
  event_id: string;
  event_type: CustomerEventType;
  status: DeliveryStatus;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: Date | null;
  delivered_at: Date | null;
  created_at: Date;
}

/** An event as it is sent: its exact body is kept, so every attempt sends the same bytes. */
export interface NewEvent {
  id: string;
  organizationId: string;
  type: CustomerEventType;
  body: string;
}

export interface NewDelivery {
  endpointId: string;
  organizationId: string;
  eventSeq: number;
  /** A room's events form one lane per endpoint, sent in order; null: no lane. */
  lane: string | null;
}

/** A delivery leased to one attempt, with what the attempt needs. */
export interface ClaimedDelivery {
  id: string;
  attempts: number;
  maxAttempts: number;
  eventId: string;
  body: string;
  /** The endpoint's. */
  url: string;
  secret: string;
}

/** What an attempt ended in. */
export interface DeliveryOutcome {
  id: string;
  /** Attempts made, this one included. */
  attempts: number;
  status: DeliveryStatus;
  statusCode: number | null;
  error: string | null;
  /** When pending: the wait before the next attempt. */
  waitMs: number | null;
}

const DELIVERY_COLUMNS = `d.id, ev.id AS event_id, ev.type AS event_type, d.status, d.attempts, d.last_status_code, d.last_error,
  d.next_attempt_at, d.delivered_at, d.created_at`;

/**
 * The log is ordered at the precision it shows: `created_at` is shown to the millisecond, so
 * deliveries created within one millisecond are ordered by id (as they look equal), not by
 * microseconds nobody sees (index `webhook_deliveries_log_ms`).
 */
const LOG = `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d JOIN webhook_events ev ON ev.seq = d.event_seq
  WHERE d.endpoint_id = $1 AND d.organization_id = $2
  ORDER BY date_trunc('milliseconds', d.created_at AT TIME ZONE 'UTC') DESC, d.id DESC LIMIT $3 OFFSET $4`;

const INSERT_EVENTS = `INSERT INTO webhook_events (id, organization_id, type, body)
  SELECT id, organization_id, type, body
    FROM unnest($1::text[], $2::uuid[], $3::text[], $4::text[]) WITH ORDINALITY AS e(id, organization_id, type, body, n)
   ORDER BY n RETURNING seq, id`;

// The statement's trigger notifies `webhook_deliveries` at commit (migration Integrations).
const INSERT_DELIVERIES = `INSERT INTO webhook_deliveries (endpoint_id, organization_id, event_seq, lane, max_attempts, next_attempt_at)
  SELECT endpoint_id, organization_id, event_seq, lane, $5, now()
    FROM unnest($1::uuid[], $2::uuid[], $3::bigint[], $4::text[]) WITH ORDINALITY AS d(endpoint_id, organization_id, event_seq, lane, n)
   ORDER BY n`;

const RETRY = `UPDATE webhook_deliveries d SET next_attempt_at = now(),
         max_attempts = GREATEST(CASE WHEN d.status = 'pending' THEN d.max_attempts ELSE 0 END, d.attempts + 1), status = 'pending'
    FROM webhook_endpoints w, webhook_events ev
   WHERE d.id = $1 AND d.endpoint_id = $2 AND d.organization_id = $3
     AND w.id = d.endpoint_id AND w.organization_id = $3 AND w.deleted_at IS NULL AND ev.seq = d.event_seq
  RETURNING ${DELIVERY_COLUMNS}`;

const FAIL_PENDING = `UPDATE webhook_deliveries SET status = 'failed', last_error = 'The endpoint was deleted.', next_attempt_at = NULL
  WHERE endpoint_id = $1 AND organization_id = $2 AND status = 'pending'`;

// The dispatcher's statements run for every organization: they are scoped by endpoint, which has one.
const DUE_ENDPOINTS = `SELECT DISTINCT endpoint_id FROM webhook_deliveries
  WHERE status = 'pending' AND next_attempt_at <= now() AND (locked_until IS NULL OR locked_until < now())`;

const CLAIM = `UPDATE webhook_deliveries d SET locked_until = now() + make_interval(secs => $3)
    FROM webhook_events ev, webhook_endpoints w
   WHERE ev.seq = d.event_seq AND w.id = d.endpoint_id AND w.deleted_at IS NULL AND d.id IN (
     SELECT c.id FROM webhook_deliveries c
      WHERE c.endpoint_id = $1 AND c.status = 'pending' AND c.next_attempt_at <= now()
        AND (c.locked_until IS NULL OR c.locked_until < now())
        AND NOT EXISTS (SELECT 1 FROM webhook_deliveries p
                         WHERE p.endpoint_id = c.endpoint_id AND p.lane = c.lane AND p.status = 'pending' AND p.seq < c.seq)
      ORDER BY c.seq LIMIT $2 FOR UPDATE OF c SKIP LOCKED)
  RETURNING d.id, d.attempts, d.max_attempts, ev.id AS event_id, ev.body, w.url, w.secret`;

// A delivery no longer pending (its endpoint was deleted meanwhile) is left as it is.
const RECORD = `UPDATE webhook_deliveries d SET status = o.status, attempts = o.attempts, last_status_code = o.code, last_error = o.error,
         delivered_at = CASE WHEN o.status = 'delivered' THEN now() END,
         next_attempt_at = CASE WHEN o.status = 'pending' THEN now() + make_interval(secs => o.wait_ms / 1000.0) END,
         locked_until = NULL
    FROM unnest($1::uuid[], $2::int[], $3::text[], $4::int[], $5::text[], $6::int[]) AS o(id, attempts, status, code, error, wait_ms)
   WHERE d.id = o.id AND d.status = 'pending'`;

/**
 * `webhook_events` and `webhook_deliveries`: the customer-webhook outbox (an event, kept as sent,
 * and one delivery per endpoint it goes to), its log per endpoint, and the dispatcher's claims.
 */
@Injectable()
export class WebhookDeliveriesRepository {
  constructor(private readonly database: DatabaseClient) {}

  /** Inserts the events in this order; each one's sequence number by its id. */
  async insertEvents(events: NewEvent[], sql: Sql = this.database): Promise<Map<string, number>> {
    if (events.length === 0) return new Map();
    const rows = await sql.rows<{ seq: number; id: string }>(INSERT_EVENTS, [
      events.map((e) => e.id),
      events.map((e) => e.organizationId),
      events.map((e) => e.type),
      events.map((e) => e.body),
    ]);
    return new Map(rows.map((row) => [row.id, row.seq]));
  }

  /** Inserts pending deliveries, due now, in this order (the commit notifies the dispatcher). */
  async insertDeliveries(deliveries: NewDelivery[], maxAttempts: number, sql: Sql = this.database): Promise<void> {
    if (deliveries.length === 0) return;
    await sql.count(INSERT_DELIVERIES, [
      deliveries.map((d) => d.endpointId),
      deliveries.map((d) => d.organizationId),
      deliveries.map((d) => d.eventSeq),
      deliveries.map((d) => d.lane),
      maxAttempts,
    ]);
  }

  /** The endpoint's log, newest first; `limit` rows from `offset`. */
  async page(endpointId: string, organizationId: string, limit: number, offset: number, sql: Sql = this.database): Promise<DeliveryRow[]> {
    return sql.rows<DeliveryRow>(LOG, [endpointId, organizationId, limit, offset]);
  }

  /**
   * Makes the delivery due now, pending with one more attempt (a pending one keeps its schedule's);
   * null when the organization has no such delivery at a live endpoint.
   */
  async retry(deliveryId: string, endpointId: string, organizationId: string, sql: Sql = this.database): Promise<DeliveryRow | null> {
    const [row] = await sql.rows<DeliveryRow>(RETRY, [deliveryId, endpointId, organizationId]);
    return row ?? null;
  }

  /** Marks the endpoint's pending deliveries failed (its endpoint was deleted); how many. */
  async failPending(endpointId: string, organizationId: string, sql: Sql = this.database): Promise<number> {
    return sql.count(FAIL_PENDING, [endpointId, organizationId]);
  }

  /** The endpoints with deliveries due and not leased. */
  async dueEndpoints(sql: Sql = this.database): Promise<string[]> {
    const rows = await sql.rows<{ endpoint_id: string }>(DUE_ENDPOINTS);
    return rows.map((row) => row.endpoint_id);
  }

  /**
   * Leases up to `count` of the endpoint's due deliveries that head their lanes (one per room at
   * most), oldest first, for `leaseSeconds`; none for a deleted endpoint.
   */
  async claim(endpointId: string, count: number, leaseSeconds: number, sql: Sql = this.database): Promise<ClaimedDelivery[]> {
    const rows = await sql.rows<{
      id: string;
      attempts: number;
      max_attempts: number;
      event_id: string;
      body: string;
      url: string;
      secret: string;
    }>(CLAIM, [endpointId, count, leaseSeconds]);
    return rows.map((row) => ({
      id: row.id,
      attempts: row.attempts,
      maxAttempts: row.max_attempts,
      eventId: row.event_id,
      body: row.body,
      url: row.url,
      secret: row.secret,
    }));
  }

  /** Records outcomes of attempts (with one statement) and ends their leases. */
  async record(outcomes: DeliveryOutcome[], sql: Sql = this.database): Promise<void> {
    if (outcomes.length === 0) return;
    await sql.count(RECORD, [
      outcomes.map((o) => o.id),
      outcomes.map((o) => o.attempts),
      outcomes.map((o) => o.status),
      outcomes.map((o) => o.statusCode),
      outcomes.map((o) => o.error),
      outcomes.map((o) => o.waitMs),
    ]);
  }
}
