import { Injectable } from '@nestjs/common';
import { DatabaseClient } from '../../database/database.client';
import type { Sql } from '../../database/sql';
import type { RoomUsageView } from './billing.dto';

/** One line of the history before its room is attached: a purchase, grant, refund, adjustment or a room's total. */
export interface HistoryLineRow {
  kind: string;
  occurred_at: Date;
  delta_cents: number;
  currency: string;
  provider_reference: string | null;
  room_id: string | null;
}

export type HistoryRoomRow = Omit<RoomUsageView, 'participants'>;

/** A timestamptz as JavaScript's Date#toJSON writes it, so every endpoint shows times alike. */
const ISO = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

const HISTORY_VERSION = {
  name: 'history_version',
  text: `SELECT coalesce((SELECT version FROM history_versions WHERE organization_id = $1), 0)::text AS version`,
};

// bigint: offset may be any safe integer, and limit + offset must not overflow int4.
const HISTORY_LINES = {
  name: 'history_page',
  text: `SELECT kind, occurred_at, delta_cents, currency, provider_reference, room_id FROM (
         (SELECT e.kind, e.occurred_at, e.delta_cents, e.currency, e.provider_reference, NULL::uuid AS room_id, lpad(e.id::text, 20, '0') AS line_key
            FROM ledger_entries e WHERE e.organization_id = $1 AND e.kind <> 'charge' AND e.kind <> 'charge_correction'
           ORDER BY e.occurred_at DESC, lpad(e.id::text, 20, '0') DESC LIMIT $2::bigint + $3::bigint)
         UNION ALL
         (SELECT 'room_usage', r.started_at, -r.total_charged_cents, $4, NULL, r.id, r.id::text
            FROM rooms r WHERE r.organization_id = $1 AND r.total_charged_cents > 0
           ORDER BY r.started_at DESC, r.id::text DESC LIMIT $2::bigint + $3::bigint)
       ) lines ORDER BY occurred_at DESC, line_key DESC LIMIT $2::bigint OFFSET $3::bigint`,
};

const HISTORY_ROOMS = {
  name: 'history_rooms',
  text: `SELECT r.id, r.name, r.streaming_mode, r.started_at, r.ended_at, r.total_connection_minutes, r.total_charged_cents
           FROM rooms r WHERE r.id = ANY($1) AND r.organization_id = $2`,
};

// A page can carry thousands of connections: Postgres writes their JSON, which is far cheaper than
// turning each row into JS objects and dates first.
const HISTORY_BREAKDOWNS = {
  name: 'history_breakdowns',
  text: `SELECT c.room_id, json_agg(json_build_object(
                  'id', c.id, 'participant_identity', c.identity, 'participant_kind', c.kind, 'languages', c.languages,
                  'joined_at', ${ISO('c.joined_at')}, 'left_at', ${ISO('c.left_at')},
                  'connection_minutes', c.connection_minutes, 'charged_cents', c.charged_cents) ORDER BY c.joined_at, c.id)::text AS participants
           FROM connections c
          WHERE c.room_id = ANY($1) AND c.organization_id = $2 AND c.left_at IS NOT NULL
          GROUP BY c.room_id`,
};

/** The reads behind `GET /v1/billing/history`, each scoped to the organization in its own statement. */
@Injectable()
export class BillingHistoryRepository {
  constructor(private readonly database: DatabaseClient) {}

  /** The organization's history version ('0' before its first change). */
  async version(organizationId: string, sql: Sql = this.database): Promise<string> {
    const [row] = await sql.rows<{ version: string }>(HISTORY_VERSION, [organizationId]);
    return row.version;
  }

  /** Up to `limit` lines after `offset`, newest first: credit lines and one line per charged room. */
  async lines(
    organizationId: string,
    page: { limit: number; offset: number; currency: string },
    sql: Sql = this.database,
  ): Promise<HistoryLineRow[]> {
    return sql.rows<HistoryLineRow>(HISTORY_LINES, [organizationId, page.limit, page.offset, page.currency]);
  }

  async rooms(organizationId: string, roomIds: string[], sql: Sql = this.database): Promise<HistoryRoomRow[]> {
    return sql.rows<HistoryRoomRow>(HISTORY_ROOMS, [roomIds, organizationId]);
  }

  /** Each room's ended connections as a JSON array text, in join order. */
  async breakdowns(organizationId: string, roomIds: string[], sql: Sql = this.database): Promise<Map<string, string>> {
    const rows = await sql.rows<{ room_id: string; participants: string }>(HISTORY_BREAKDOWNS, [roomIds, organizationId]);
    return new Map(rows.map((row) => [row.room_id, row.participants]));
  }
}
