import type { Granularity } from '@app/domain';
import { Injectable } from '@nestjs/common';
import { DatabaseClient } from '../../database/database.client';
import type { Sql } from '../../database/sql';

/** Usage summed over some span: every instant of it lies in one bucket of the overview. */
export interface UsageSample {
  /** An instant inside the sample's bucket, epoch milliseconds. */
  atMs: number;
  minutes: number;
  sessions: number;
  participants: number;
}

/** How slots are summed: per UTC hour, or per local bucket of `granularity` in `timezone`. */
export type SlotGrouping = { per: 'utc hour' } | { per: 'local bucket'; granularity: Granularity; timezone: string };

/** A half-open span [from, to). */
export interface Span {
  from: Date;
  to: Date;
}

interface SlotRow {
  at: number;
  minutes: number;
  sessions: number;
  participants: number;
}

interface EdgeRoomRow {
  at: Date;
  minutes: number;
  sessions: number;
  participants: number;
}

const slotsStatement = (grouping: string) =>
  `SELECT (extract(epoch FROM min(slot)) * 1000)::float8 AS at, sum(minutes)::bigint AS minutes, sum(sessions)::int AS sessions,
                sum(participants)::int AS participants
           FROM usage_slots
          WHERE organization_id = $1 AND slot >= $2 AND slot < $3 AND sessions > 0
          GROUP BY ${grouping}`;

// Each group's earliest slot lies in its bucket and places it there.
const SLOTS_BY_UTC_HOUR = { name: 'usage_slots_by_utc_hour', text: slotsStatement(`date_trunc('hour', slot AT TIME ZONE 'UTC')`) };
const SLOTS_BY_LOCAL_BUCKET = {
  name: 'usage_slots_by_local_bucket',
  text: slotsStatement(`date_trunc($4::text, slot AT TIME ZONE $5::text), (slot AT TIME ZONE $5::text) - (slot AT TIME ZONE 'UTC')`),
};

const WINDOW_EDGES = {
  name: 'usage_window_edges',
  text: `SELECT r.started_at AS at, r.total_connection_minutes AS minutes, 1 AS sessions,
                (SELECT count(*)::int FROM connections c WHERE c.room_id = r.id AND c.kind IS DISTINCT FROM 'translator') AS participants
           FROM rooms r
          WHERE r.organization_id = $1 AND r.started_at IS NOT NULL
            AND ((r.started_at >= $2 AND r.started_at < $3) OR (r.started_at >= $4 AND r.started_at < $5))`,
};

/** The reads behind `GET /v1/usage/overview`: the 15-minute rollup, and rooms at a window's edges. */
@Injectable()
export class UsageRepository {
  constructor(private readonly database: DatabaseClient) {}

  /** The organization's slots in `span` with a session, summed per group of `grouping`. */
  async slots(organizationId: string, span: Span, grouping: SlotGrouping, sql: Sql = this.database): Promise<UsageSample[]> {
    const rows =
      grouping.per === 'utc hour'
        ? await sql.rows<SlotRow>(SLOTS_BY_UTC_HOUR, [organizationId, span.from, span.to])
        : await sql.rows<SlotRow>(SLOTS_BY_LOCAL_BUCKET, [organizationId, span.from, span.to, grouping.granularity, grouping.timezone]);
    return rows.map((row) => ({
      atMs: row.at,
      minutes: Number(row.minutes),
      sessions: row.sessions,
      participants: row.participants,
    }));
  }

  /**
   * One sample per room of the organization started in either span (the partial slots at a
   * window's edges): its connection minutes, one session, its participants other than translators.
   */
  async roomsStartedWithin(organizationId: string, spans: [Span, Span], sql: Sql = this.database): Promise<UsageSample[]> {
    const [first, second] = spans;
    const rows = await sql.rows<EdgeRoomRow>(WINDOW_EDGES, [organizationId, first.from, first.to, second.from, second.to]);
    return rows.map((row) => ({ atMs: row.at.getTime(), minutes: row.minutes, sessions: row.sessions, participants: row.participants }));
  }
}
