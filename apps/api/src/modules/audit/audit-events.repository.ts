import type { AuditAction, AuditActorType, AuditTargetType } from '@app/domain';
import { Injectable } from '@nestjs/common';
import { DatabaseClient } from '../../database/database.client';
import type { Sql, Tx } from '../../database/sql';
import { type Narrowed, sql } from '../../database/typed-sql';
import type {
  IAllowRetentionQuery,
  IDeleteExpiredQuery,
  IInsertEventsQuery,
  IPageQuery,
  IPageResult,
} from './audit-events.repository.types';

/** One audit event to append: who, what, about which object, from which request. */
export interface NewAuditEvent {
  organizationId: string;
  action: AuditAction;
  actorType: AuditActorType;
  actorUserId: string | null;
  actorEmail: string | null;
  /** The key acting (its prefix is read from its row in the same statement). */
  apiKeyId: string | null;
  targetType: AuditTargetType;
  targetId: string;
  requestId: string | null;
  ip: string | null;
  /** What changed; never a secret. */
  details: Record<string, unknown>;
}

export type AuditEventRow = Narrowed<IPageResult, { actor_type: AuditActorType }>;

export interface AuditFilter {
  action: string | null;
  actorUserId: string | null;
  targetId: string | null;
  since: Date | null;
  until: Date | null;
}

// One or many events, in the order given (their `seq` and `occurred_at` follow it). A JSON array
// rather than one array parameter per column: several columns hold nulls.
const INSERT_EVENTS = sql<IInsertEventsQuery>`INSERT INTO audit_events (organization_id, action, actor_type, actor_user_id, actor_email,
    actor_api_key_id, actor_api_key_prefix, target_type, target_id, request_id, ip, details)
  SELECT e.organization_id, e.action, e.actor_type, e.actor_user_id, e.actor_email, e.actor_api_key_id,
    (SELECT key_prefix FROM api_keys WHERE id = e.actor_api_key_id AND organization_id = e.organization_id),
    e.target_type, e.target_id, e.request_id, e.ip, e.details
  FROM ROWS FROM (jsonb_to_recordset($events!::jsonb) AS (organization_id uuid, action text, actor_type text, actor_user_id uuid,
    actor_email text, actor_api_key_id uuid, target_type text, target_id text, request_id text, ip text, details jsonb))
    WITH ORDINALITY AS e
  ORDER BY e.ordinality`;

// Newest first; rows of one instant in the order they were written, last first.
const PAGE = sql<IPageQuery>`SELECT id, occurred_at, action, actor_type, actor_user_id, actor_email, actor_api_key_id,
    actor_api_key_prefix, target_type, target_id, request_id, ip, details
  FROM audit_events
  WHERE organization_id = $organizationId!
    AND ($action::text IS NULL OR action = $action::text)
    AND ($actorUserId::uuid IS NULL OR actor_user_id = $actorUserId::uuid)
    AND ($targetId::text IS NULL OR target_id = $targetId::text)
    AND ($since::timestamptz IS NULL OR occurred_at >= $since::timestamptz)
    AND ($until::timestamptz IS NULL OR occurred_at < $until::timestamptz)
  ORDER BY occurred_at DESC, seq DESC LIMIT $limit! OFFSET $offset!`;

// The append-only trigger lets a DELETE through only in a transaction that says it is the retention job.
const ALLOW_RETENTION = sql<IAllowRetentionQuery>`SELECT set_config('app.audit_retention', 'on', true) AS "allowed!"`;

const DELETE_EXPIRED = sql<IDeleteExpiredQuery>`DELETE FROM audit_events WHERE id IN (
    SELECT id FROM audit_events WHERE occurred_at < now() - make_interval(days => $days!) ORDER BY occurred_at LIMIT $limit!)`;

/** The `audit_events` rows: appended in the transaction of each change, read newest first, removed only by retention. */
@Injectable()
export class AuditEventsRepository {
  constructor(private readonly database: DatabaseClient) {}

  /** Appends the events in one statement (the rooms created together write theirs at once). */
  async insert(events: NewAuditEvent[], tx: Tx): Promise<void> {
    if (events.length === 0) return;
    const rows = events.map((event) => ({
      organization_id: event.organizationId,
      action: event.action,
      actor_type: event.actorType,
      actor_user_id: event.actorUserId,
      actor_email: event.actorEmail,
      actor_api_key_id: event.apiKeyId,
      target_type: event.targetType,
      target_id: event.targetId,
      request_id: event.requestId,
      ip: event.ip,
      details: event.details,
    }));
    await tx.rows(INSERT_EVENTS, { events: JSON.stringify(rows) });
  }

  /** Up to `limit` of the organization's events matching `filter`, after `offset`, newest first. */
  async page(
    organizationId: string,
    filter: AuditFilter,
    limit: number,
    offset: number,
    sql: Sql = this.database,
  ): Promise<AuditEventRow[]> {
    return sql.rows<IPageQuery, AuditEventRow>(PAGE, { organizationId, ...filter, limit, offset });
  }

  /** Deletes up to `limit` events older than `days` days, oldest first (in a transaction of its own: the trigger's permission lasts that long). */
  async deleteExpired(days: number, limit: number, tx: Tx): Promise<number> {
    await tx.rows(ALLOW_RETENTION);
    return tx.count(DELETE_EXPIRED, { days, limit });
  }
}
