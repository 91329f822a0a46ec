import { Injectable } from '@nestjs/common';
import type { ParticipantUsageView } from '../rooms/room.dto';
import { DatabaseClient } from '../../database/database.client';
import type { Sql } from '../../database/sql';
import { prepared, sql } from '../../database/typed-sql';
import type {
  IHistoryBreakdownsQuery,
  IHistoryLinesQuery,
  IHistoryLinesResult,
  IHistoryRoomsQuery,
  IHistoryRoomsResult,
  IHistoryVersionQuery,
} from './billing-history.repository.types';

/** One line of the history before its room is attached: a purchase, grant, refund, adjustment or a room's total. */
export type HistoryLineRow = IHistoryLinesResult;

export type HistoryRoomRow = IHistoryRoomsResult;

/** One element of HISTORY_BREAKDOWNS's `participants` array, as its json_build_object writes it. */
interface BreakdownJson {
  id: number;
  participant_identity: string;
  participant_kind: string | null;
  languages: string[] | null;
  joined_at: string;
  left_at: string | null;
  connection_minutes: number | null;
  charged_cents: number | null;
}

const HISTORY_VERSION = sql<IHistoryVersionQuery>`SELECT coalesce((SELECT version FROM history_versions WHERE organization_id = $organizationId!), 0)::text AS "version!"`;

// bigint: offset may be any safe integer, and limit + offset must not overflow int4. The lines come
// out of a UNION, whose columns pgtyped cannot trace to their tables: the marks say which are never
// null. A room's line is its start: a room is charged for its connections, and it starts at its
// earliest join (RoomsRepository.activate), so a charged room has started.
const HISTORY_LINES = sql<IHistoryLinesQuery>`SELECT kind AS "kind!", occurred_at AS "occurred_at!", delta_cents AS "delta_cents!", currency AS "currency!",
       provider_reference, room_id FROM (
         (SELECT e.kind, e.occurred_at, e.delta_cents, e.currency, e.provider_reference, NULL::uuid AS room_id, lpad(e.id::text, 20, '0') AS line_key
            FROM ledger_entries e WHERE e.organization_id = $organizationId! AND e.kind <> 'charge' AND e.kind <> 'charge_correction'
           ORDER BY e.occurred_at DESC, lpad(e.id::text, 20, '0') DESC LIMIT $limit!::bigint + $offset!::bigint)
         UNION ALL
         (SELECT 'room_usage', r.started_at, -r.total_charged_cents, $currency!, NULL, r.id, r.id::text
            FROM rooms r WHERE r.organization_id = $organizationId! AND r.total_charged_cents > 0
           ORDER BY r.started_at DESC, r.id::text DESC LIMIT $limit!::bigint + $offset!::bigint)
       ) lines ORDER BY occurred_at DESC, line_key DESC LIMIT $limit!::bigint OFFSET $offset!::bigint`;

const HISTORY_ROOMS = sql<IHistoryRoomsQuery>`SELECT r.id, r.name, r.streaming_mode, r.started_at, r.ended_at, r.total_connection_minutes, r.total_charged_cents
  FROM rooms r WHERE r.id = ANY($roomIds!) AND r.organization_id = $organizationId!`;

// A page can carry thousands of connections: Postgres writes each room's as one JSON array (its shape is
// `BreakdownJson` below), which is far cheaper to read than a row per connection. Times are written as
// JavaScript's Date#toJSON writes them.
const HISTORY_BREAKDOWNS = sql<IHistoryBreakdownsQuery>`SELECT c.room_id, json_agg(json_build_object(
         'id', c.id, 'participant_identity', c.identity, 'participant_kind', c.kind, 'languages', c.languages,
         'joined_at', to_char(c.joined_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
         'left_at', to_char(c.left_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
         'connection_minutes', c.connection_minutes, 'charged_cents', c.charged_cents) ORDER BY c.joined_at, c.id)::text AS "participants!"
  FROM connections c
 WHERE c.room_id = ANY($roomIds!) AND c.organization_id = $organizationId! AND c.left_at IS NOT NULL
 GROUP BY c.room_id`;

/** Prepared: every history page that misses the cache runs them. */
const HISTORY_VERSION_PREPARED = prepared('history_version', HISTORY_VERSION);
const HISTORY_LINES_PREPARED = prepared('history_page', HISTORY_LINES);
const HISTORY_ROOMS_PREPARED = prepared('history_rooms', HISTORY_ROOMS);
const HISTORY_BREAKDOWNS_PREPARED = prepared('history_breakdowns', HISTORY_BREAKDOWNS);

/** The reads behind `GET /v1/billing/history`, each scoped to the organization in its own statement. */
@Injectable()
export class BillingHistoryRepository {
  constructor(private readonly database: DatabaseClient) {}

  /** The organization's history version ('0' before its first change). */
  async version(organizationId: string, sql: Sql = this.database): Promise<string> {
    const [row] = await sql.rows(HISTORY_VERSION_PREPARED, { organizationId });
    return row.version;
  }

  /** Up to `limit` lines after `offset`, newest first: credit lines and one line per charged room. */
  async lines(
    organizationId: string,
    page: { limit: number; offset: number; currency: string },
    sql: Sql = this.database,
  ): Promise<HistoryLineRow[]> {
    return sql.rows(HISTORY_LINES_PREPARED, { organizationId, ...page });
  }

  async rooms(organizationId: string, roomIds: string[], sql: Sql = this.database): Promise<HistoryRoomRow[]> {
    return sql.rows(HISTORY_ROOMS_PREPARED, { roomIds, organizationId });
  }

  /** Each room's ended connections as a JSON array text, in join order (`BreakdownJson` elements). */
  async breakdowns(organizationId: string, roomIds: string[], sql: Sql = this.database): Promise<Map<string, string>> {
    const rows = await sql.rows(HISTORY_BREAKDOWNS_PREPARED, { roomIds, organizationId });
    return new Map(rows.map((row) => [row.room_id, row.participants]));
  }

  /** Each room's ended connections in join order, as the answer's schema (ParticipantUsageView) has them. */
  async participants(organizationId: string, roomIds: string[], sql: Sql = this.database): Promise<Map<string, ParticipantUsageView[]>> {
    const breakdowns = await this.breakdowns(organizationId, roomIds, sql);
    return new Map([...breakdowns].map(([roomId, json]) => [roomId, (JSON.parse(json) as BreakdownJson[]).map(participantUsage)]));
  }
}

function participantUsage(json: BreakdownJson): ParticipantUsageView {
  return { ...json, joined_at: new Date(json.joined_at), left_at: json.left_at === null ? null : new Date(json.left_at) };
}
