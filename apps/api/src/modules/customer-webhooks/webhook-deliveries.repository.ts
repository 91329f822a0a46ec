import { Injectable } from '@nestjs/common';
import { DatabaseClient } from '../../database/database.client';
import type { Sql, Tx } from '../../database/sql';
import { type Narrowed, prepared, sql, withNulls } from '../../database/typed-sql';
import type { CustomerEventType } from './event-types';
import type {
  IClaimQuery,
  IDeleteExpiredQuery,
  IDueEndpointsQuery,
  IFailPendingQuery,
  IInsertQuery,
  ILogQuery,
  ILogResult,
  ILockEventOrderQuery,
  IRecordQuery,
  IRetryQuery,
} from './webhook-deliveries.repository.types';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/** A delivery as its endpoint's log shows it (`event_id`: the `webhook-id` header, the same on every attempt). */
export type DeliveryRow = Narrowed<ILogResult, { event_type: CustomerEventType; status: DeliveryStatus }>;

/** An event as it is sent: its exact body is kept, so every attempt sends the same bytes. */
export interface NewEvent {
  id: string;
  organizationId: string;
  type: CustomerEventType;
  /** The room it is about, for the log's `room_id` filter (null: none). */
  roomId: string | null;
  body: string;
}

export interface NewDelivery {
  endpointId: string;
  /** The id of its event, inserted by the same call. */
  eventId: string;
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

/**
 * The log is ordered at the precision it shows: `created_at` is shown to the millisecond, so
 * deliveries created within one millisecond are ordered by id (as they look equal), not by
 * microseconds nobody sees (index `webhook_deliveries_log_ms`).
 */
const LOG = sql<ILogQuery>`SELECT d.id, ev.id AS event_id, ev.type AS event_type, d.status, d.attempts, d.last_status_code, d.last_error,
         d.next_attempt_at, d.delivered_at, d.created_at
    FROM webhook_deliveries d JOIN webhook_events ev ON ev.seq = d.event_seq
   WHERE d.endpoint_id = $endpointId! AND d.organization_id = $organizationId!
   ORDER BY date_trunc('milliseconds', d.created_at AT TIME ZONE 'UTC') DESC, d.id DESC LIMIT $limit! OFFSET $offset!`;

/**
 * The events, in this order, and their deliveries, in this order, in one statement (the deliveries
 * join their events by id; each delivery has its event's organization). The statement's trigger
 * notifies `webhook_deliveries` at commit (migration Integrations).
 */
const INSERT = sql<IInsertQuery>`WITH ev AS (
    INSERT INTO webhook_events (id, organization_id, type, room_id, body)
    SELECT id, organization_id, type, room_id, body
      FROM unnest($ids!::text[], $organizationIds!::uuid[], $types!::text[], $roomIds!::uuid[], $bodies!::text[])
        WITH ORDINALITY AS e(id, organization_id, type, room_id, body, n)
     ORDER BY n RETURNING seq, id, organization_id)
  INSERT INTO webhook_deliveries (endpoint_id, organization_id, event_seq, lane, max_attempts, next_attempt_at)
  SELECT d.endpoint_id, ev.organization_id, ev.seq, d.lane, $maxAttempts!, now()
    FROM unnest($endpointIds!::uuid[], $eventIds!::text[], $lanes!::text[])
      WITH ORDINALITY AS d(endpoint_id, event_id, lane, n)
    JOIN ev ON ev.id = d.event_id
   ORDER BY d.n`;

/**
 * An organization's event-writing transactions take their events' `seq` one after another: the lock is
 * taken just before the insert and held to commit, so within an organization `seq` order is commit order
 * (a stream reading "after seq N" can never miss a lower seq that commits later).
 */
const LOCK_EVENT_ORDER = sql<ILockEventOrderQuery>`SELECT pg_advisory_xact_lock(hashtextextended('events:' || o::text, 0))
  FROM unnest($organizationIds!::uuid[]) WITH ORDINALITY AS u(o, n) ORDER BY n`;

// Retention: a bounded batch of the oldest events, with their deliveries (the key is checked at the statement's end).
const DELETE_EXPIRED = sql<IDeleteExpiredQuery>`WITH doomed AS (
    SELECT seq FROM webhook_events WHERE created_at < now() - make_interval(days => $days!) ORDER BY created_at, seq LIMIT $limit!),
  deliveries AS (DELETE FROM webhook_deliveries WHERE event_seq IN (SELECT seq FROM doomed))
  DELETE FROM webhook_events WHERE seq IN (SELECT seq FROM doomed)`;

const RETRY = sql<IRetryQuery>`UPDATE webhook_deliveries d SET next_attempt_at = now(),
         max_attempts = GREATEST(CASE WHEN d.status = 'pending' THEN d.max_attempts ELSE 0 END, d.attempts + 1), status = 'pending'
    FROM webhook_endpoints w, webhook_events ev
   WHERE d.id = $deliveryId! AND d.endpoint_id = $endpointId! AND d.organization_id = $organizationId!
     AND w.id = d.endpoint_id AND w.organization_id = $organizationId! AND w.deleted_at IS NULL AND ev.seq = d.event_seq
  RETURNING d.id, ev.id AS event_id, ev.type AS event_type, d.status, d.attempts, d.last_status_code, d.last_error,
         d.next_attempt_at, d.delivered_at, d.created_at`;

const FAIL_PENDING = sql<IFailPendingQuery>`UPDATE webhook_deliveries
     SET status = 'failed', last_error = 'The endpoint was deleted.', next_attempt_at = NULL
   WHERE endpoint_id = $endpointId! AND organization_id = $organizationId! AND status = 'pending'`;

// The dispatcher's statements run for every organization: they are scoped by endpoint, which has one.
const DUE_ENDPOINTS = sql<IDueEndpointsQuery>`SELECT DISTINCT endpoint_id FROM webhook_deliveries
  WHERE status = 'pending' AND next_attempt_at <= now() AND (locked_until IS NULL OR locked_until < now())`;

/**
 * A candidate heads its lane when no earlier delivery of that lane is pending: looked up candidate by
 * candidate through the lane index (`OFFSET 0` keeps the planner from turning it into an anti-join,
 * which, on the estimates of a burst of new deliveries, compared every pending delivery of the
 * endpoint with every candidate: 20 ms for 126 pending, docs/performance-history.md).
 */
const CLAIM = sql<IClaimQuery>`UPDATE webhook_deliveries d SET locked_until = now() + make_interval(secs => $leaseSeconds!)
    FROM webhook_events ev, webhook_endpoints w
   WHERE ev.seq = d.event_seq AND w.id = d.endpoint_id AND w.deleted_at IS NULL AND d.id IN (
     SELECT c.id FROM webhook_deliveries c
      WHERE c.endpoint_id = $endpointId! AND c.status = 'pending' AND c.next_attempt_at <= now()
        AND (c.locked_until IS NULL OR c.locked_until < now())
        AND NOT EXISTS (SELECT 1 FROM webhook_deliveries p
                         WHERE p.endpoint_id = c.endpoint_id AND p.lane = c.lane AND p.status = 'pending' AND p.seq < c.seq OFFSET 0)
      ORDER BY c.seq LIMIT $count! FOR UPDATE OF c SKIP LOCKED)
  RETURNING d.id, d.attempts, d.max_attempts, ev.id AS event_id, ev.body, w.url, w.secret`;
/** Run by every endpoint's window as it refills. */
const CLAIM_PREPARED = prepared('webhook_deliveries_claim', CLAIM);

// A delivery no longer pending (its endpoint was deleted meanwhile) is left as it is.
const RECORD = sql<IRecordQuery>`UPDATE webhook_deliveries d SET status = o.status, attempts = o.attempts, last_status_code = o.code, last_error = o.error,
         delivered_at = CASE WHEN o.status = 'delivered' THEN now() END,
         next_attempt_at = CASE WHEN o.status = 'pending' THEN now() + make_interval(secs => o.wait_ms / 1000.0) END,
         locked_until = NULL
    FROM unnest($ids!::uuid[], $attempts!::int[], $statuses!::text[], $codes!::int[], $errors!::text[], $waitMs!::int[])
      AS o(id, attempts, status, code, error, wait_ms)
   WHERE d.id = o.id AND d.status = 'pending'`;

/**
 * `webhook_events` and `webhook_deliveries`: the customer-webhook outbox (an event, kept as sent,
 * and one delivery per endpoint it goes to), its log per endpoint, and the dispatcher's claims.
 */
@Injectable()
export class WebhookDeliveriesRepository {
  constructor(private readonly database: DatabaseClient) {}

  /**
   * Inserts the events and their pending deliveries, due now, each in the order given, with one
   * statement (the commit notifies the dispatcher).
   */
  async insert(events: NewEvent[], deliveries: NewDelivery[], maxAttempts: number, tx: Tx): Promise<void> {
    if (events.length === 0) return;
    const organizations = [...new Set(events.map((e) => e.organizationId))].sort();
    await tx.rows(LOCK_EVENT_ORDER, { organizationIds: organizations });
    await tx.count(INSERT, {
      ids: events.map((e) => e.id),
      organizationIds: events.map((e) => e.organizationId),
      types: events.map((e) => e.type),
      roomIds: withNulls(events.map((e) => e.roomId)),
      bodies: events.map((e) => e.body),
      endpointIds: deliveries.map((d) => d.endpointId),
      eventIds: deliveries.map((d) => d.eventId),
      lanes: withNulls(deliveries.map((d) => d.lane)),
      maxAttempts,
    });
  }

  /** Deletes up to `limit` of the events older than `days` days, and their deliveries; how many events. */
  async deleteExpired(days: number, limit: number, tx: Tx): Promise<number> {
    return tx.count(DELETE_EXPIRED, { days, limit });
  }

  /** The endpoint's log, newest first; `limit` rows from `offset`. */
  async page(endpointId: string, organizationId: string, limit: number, offset: number, sql: Sql = this.database): Promise<DeliveryRow[]> {
    return sql.rows<ILogQuery, DeliveryRow>(LOG, { endpointId, organizationId, limit, offset });
  }

  /**
   * Makes the delivery due now, pending with one more attempt (a pending one keeps its schedule's);
   * null when the organization has no such delivery at a live endpoint.
   */
  async retry(deliveryId: string, endpointId: string, organizationId: string, tx: Tx): Promise<DeliveryRow | null> {
    const [row] = await tx.rows<IRetryQuery, DeliveryRow>(RETRY, { deliveryId, endpointId, organizationId });
    return row ?? null;
  }

  /** Marks the endpoint's pending deliveries failed (its endpoint was deleted); how many. */
  async failPending(endpointId: string, organizationId: string, tx: Tx): Promise<number> {
    return tx.count(FAIL_PENDING, { endpointId, organizationId });
  }

  /** The endpoints with deliveries due and not leased. */
  async dueEndpoints(sql: Sql = this.database): Promise<string[]> {
    const rows = await sql.rows(DUE_ENDPOINTS);
    return rows.map((row) => row.endpoint_id);
  }

  /**
   * Leases up to `count` of the endpoint's due deliveries that head their lanes (one per room at
   * most), oldest first, for `leaseSeconds`; none for a deleted endpoint.
   */
  async claim(endpointId: string, count: number, leaseSeconds: number, tx: Tx): Promise<ClaimedDelivery[]> {
    const rows = await tx.rows(CLAIM_PREPARED, { endpointId, count, leaseSeconds });
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
  async record(outcomes: DeliveryOutcome[], tx: Tx): Promise<void> {
    if (outcomes.length === 0) return;
    await tx.count(RECORD, {
      ids: outcomes.map((o) => o.id),
      attempts: outcomes.map((o) => o.attempts),
      statuses: outcomes.map((o) => o.status),
      codes: withNulls(outcomes.map((o) => o.statusCode)),
      errors: withNulls(outcomes.map((o) => o.error)),
      waitMs: withNulls(outcomes.map((o) => o.waitMs)),
    });
  }
}
