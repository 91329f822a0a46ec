import { Injectable } from '@nestjs/common';
import { DatabaseClient } from '../../database/database.client';
import type { Sql } from '../../database/sql';
import { sql } from '../../database/typed-sql';
import type { IAfterQuery, ICursorStateQuery, IPageQuery } from './event-log.repository.types';

/** A kept event: its cursor (`seq`), and its body exactly as webhooks send it. */
export interface LoggedEvent {
  seq: number;
  organizationId: string;
  type: string;
  roomId: string | null;
  body: string;
}

export interface EventFilter {
  type: string | null;
  roomId: string | null;
  since: Date | null;
}

// Newest first (seq: the organization's commit order, see WebhookDeliveriesRepository.insert).
const PAGE = sql<IPageQuery>`SELECT body FROM webhook_events
  WHERE organization_id = $organizationId!
    AND ($type::text IS NULL OR type = $type::text)
    AND ($roomId::uuid IS NULL OR room_id = $roomId::uuid)
    AND ($since::timestamptz IS NULL OR created_at >= $since::timestamptz)
  ORDER BY seq DESC LIMIT $limit! OFFSET $offset!`;

/** Each organization's events after its own cursor, oldest first, at most `limit` of each. */
const AFTER = sql<IAfterQuery>`SELECT e.seq AS "seq!", e.organization_id AS "organization_id!", e.type AS "type!", e.room_id, e.body AS "body!"
  FROM unnest($organizationIds!::uuid[], $afters!::bigint[]) AS c(organization_id, after)
  CROSS JOIN LATERAL (SELECT seq, organization_id, type, room_id, body FROM webhook_events w
                       WHERE w.organization_id = c.organization_id AND w.seq > c.after ORDER BY w.seq LIMIT $limit!) e
  ORDER BY e.organization_id, e.seq`;

/** Where an organization's log stands: its newest cursor, its oldest kept one, and whether `seq` is one of its events. */
const CURSOR_STATE = sql<ICursorStateQuery>`SELECT
    (SELECT max(seq) FROM webhook_events WHERE organization_id = $organizationId!) AS newest,
    (SELECT min(seq) FROM webhook_events WHERE organization_id = $organizationId!) AS oldest,
    EXISTS (SELECT 1 FROM webhook_events WHERE organization_id = $organizationId! AND seq = $seq!) AS "known!"`;

/** Reads the customer event log (`webhook_events`, written by WebhookDeliveriesRepository with the change). */
@Injectable()
export class EventLogRepository {
  constructor(private readonly database: DatabaseClient) {}

  /** Up to `limit` of the organization's event bodies matching `filter`, after `offset`, newest first. */
  async page(organizationId: string, filter: EventFilter, limit: number, offset: number, sql: Sql = this.database): Promise<string[]> {
    const rows = await sql.rows(PAGE, { organizationId, ...filter, limit, offset });
    return rows.map((row) => row.body);
  }

  /** Each organization's events after its cursor, in cursor order, up to `limit` each. */
  async after(cursors: { organizationId: string; after: number }[], limit: number, sql: Sql = this.database): Promise<LoggedEvent[]> {
    if (cursors.length === 0) return [];
    const rows = await sql.rows(AFTER, {
      organizationIds: cursors.map((c) => c.organizationId),
      afters: cursors.map((c) => c.after),
      limit,
    });
    return rows.map((row) => ({ seq: row.seq, organizationId: row.organization_id, type: row.type, roomId: row.room_id, body: row.body }));
  }

  async cursorState(
    organizationId: string,
    seq: number,
    sql: Sql = this.database,
  ): Promise<{ newest: number | null; oldest: number | null; known: boolean }> {
    const [row] = await sql.rows(CURSOR_STATE, { organizationId, seq });
    return { newest: row.newest, oldest: row.oldest, known: row.known };
  }
}
