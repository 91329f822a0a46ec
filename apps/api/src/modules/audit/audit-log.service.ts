import type { AuditAction, AuditTargetType } from '@app/domain';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type { Actor } from '../../common/auth/actor';
import { toPage, type Page } from '../../common/pagination/page';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { DatabaseClient } from '../../database/database.client';
import type { Tx } from '../../database/sql';
import { PeriodicJobsScheduler } from '../../queue/periodic-jobs.scheduler';
import type { AuditEventsQueryDto, AuditEventView } from './audit-event.dto';
import { AuditEventsRepository, type AuditEventRow, type NewAuditEvent } from './audit-events.repository';

/** What happened, to which object: `details` says what changed and never holds a secret (key, token, webhook secret). */
export interface AuditEntry {
  action: AuditAction;
  target: { type: AuditTargetType; id: string };
  details?: Record<string, unknown>;
}

/** Who acts without being a member: the operator CLI (`operator`) or a provider such as Stripe (`system`), in one organization. */
export interface NonMember {
  type: 'operator' | 'system';
  organizationId: string;
}

/** A refused request, as the exception filter describes it. */
export interface Denial {
  /** What the route needs (`member`: any member; null: the route declares nothing). */
  permission: string | null;
  method: string;
  /** The route's path pattern (`/v1/members/:user_id`), never the request's own path, which may hold codes. */
  route: string;
  reason: string;
}

const RETENTION_EVERY_MS = 3600_000;
const RETENTION_BATCH = 10_000;
const RETENTION_BATCHES_PER_RUN = 100;

/**
 * The audit log: every change writes one event in its own transaction (`record`, `recordFor`), so a
 * change that rolls back leaves none; a 403 writes one on its own (`denied`). Events are read newest
 * first by members with `audit:read`, and deleted only past `AUDIT_RETENTION_DAYS` by a periodic job.
 */
@Injectable()
export class AuditLogService {
  private readonly logger = new Logger(AuditLogService.name);

  constructor(
    private readonly database: DatabaseClient,
    private readonly events: AuditEventsRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    // Absent in the CLI, which records events but leaves the retention to the application.
    @Optional() periodic?: PeriodicJobsScheduler,
  ) {
    periodic?.register({ name: 'audit.retention', everyMs: RETENTION_EVERY_MS, run: () => this.deleteExpired() });
  }

  /**
   * Appends what `by` changed, in the change's transaction: a member (through a session or one of their
   * keys), or the operator CLI / a provider such as Stripe in an organization.
   */
  async record(tx: Tx, by: Actor | NonMember, entry: AuditEntry): Promise<void> {
    await this.events.insert([eventOf(by, entry)], tx);
  }

  /** Several changes of one transaction, each with who made it, appended in this order in one statement. */
  async recordAll(tx: Tx, entries: { by: Actor | NonMember; entry: AuditEntry }[]): Promise<void> {
    await this.events.insert(
      entries.map(({ by, entry }) => eventOf(by, entry)),
      tx,
    );
  }

  /** A 403: one statement of its own, as nothing else changes. A failure to record it never changes the answer. */
  async denied(actor: Actor, denial: Denial): Promise<void> {
    const entry: AuditEntry = {
      action: 'access.denied',
      target: { type: 'organization', id: actor.organizationId },
      details: { ...denial },
    };
    await this.database
      .oneStatement((tx) => this.record(tx, actor, entry))
      .catch((error: Error) => this.logger.warn(`Could not record a refused request (${actor.requestId}): ${error.message}`));
  }

  async page(actor: Actor, query: AuditEventsQueryDto): Promise<Page<AuditEventView>> {
    const filter = {
      action: query.action ?? null,
      actorUserId: query.actor_user_id ?? null,
      targetId: query.target_id ?? null,
      since: typeof query.since === 'string' ? new Date(query.since) : null,
      until: typeof query.until === 'string' ? new Date(query.until) : null,
    };
    const rows = await this.events.page(actor.organizationId, filter, query.limit + 1, query.offset);
    return toPage(rows.map(eventView), query);
  }

  /** Deletes events older than the retention, in bounded batches; returns how many. */
  async deleteExpired(): Promise<number> {
    let deleted = 0;
    for (let batch = 0; batch < RETENTION_BATCHES_PER_RUN; batch++) {
      const n = await this.database.transaction((tx) => this.events.deleteExpired(this.config.auditRetentionDays, RETENTION_BATCH, tx));
      deleted += n;
      if (n < RETENTION_BATCH) break;
    }
    return deleted;
  }
}

function eventOf(by: Actor | NonMember, entry: AuditEntry): NewAuditEvent {
  const member = 'userId' in by ? by : null;
  return {
    organizationId: by.organizationId,
    action: entry.action,
    actorType: member === null ? (by as NonMember).type : member.apiKeyId === null ? 'user' : 'api_key',
    actorUserId: member?.userId ?? null,
    actorEmail: member?.email ?? null,
    apiKeyId: member?.apiKeyId ?? null,
    targetType: entry.target.type,
    targetId: entry.target.id,
    requestId: member?.requestId ?? null,
    ip: member?.ip ?? null,
    details: entry.details ?? {},
  };
}

const eventView = (row: AuditEventRow): AuditEventView => ({
  id: row.id,
  occurred_at: row.occurred_at,
  action: row.action,
  actor: {
    type: row.actor_type,
    user_id: row.actor_user_id,
    email: row.actor_email,
    api_key_id: row.actor_api_key_id,
    api_key_prefix: row.actor_api_key_prefix,
  },
  target: { type: row.target_type, id: row.target_id },
  request_id: row.request_id,
  ip: row.ip,
  details: row.details,
});
