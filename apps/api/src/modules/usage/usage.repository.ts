import type { Granularity } from '@app/domain';
import { Injectable } from '@nestjs/common';
import { DatabaseClient } from '../../database/database.client';
import type { Sql } from '../../database/sql';
import { prepared, sql } from '../../database/typed-sql';
import type { ISlotsByLocalBucketQuery, ISlotsByUtcHourQuery, IWindowEdgesQuery } from './usage.repository.types';

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

// Each group's earliest slot lies in its bucket and places it there. One statement per grouping.
const SLOTS_BY_UTC_HOUR = sql<ISlotsByUtcHourQuery>`SELECT (extract(epoch FROM min(slot)) * 1000)::float8 AS "at!", sum(minutes)::bigint AS "minutes!",
                sum(sessions)::int AS "sessions!", sum(participants)::int AS "participants!"
           FROM usage_slots
          WHERE organization_id = $organizationId! AND slot >= $from! AND slot < $to! AND sessions > 0
          GROUP BY date_trunc('hour', slot AT TIME ZONE 'UTC')`;

const SLOTS_BY_LOCAL_BUCKET = sql<ISlotsByLocalBucketQuery>`SELECT (extract(epoch FROM min(slot)) * 1000)::float8 AS "at!", sum(minutes)::bigint AS "minutes!",
                sum(sessions)::int AS "sessions!", sum(participants)::int AS "participants!"
           FROM usage_slots
          WHERE organization_id = $organizationId! AND slot >= $from! AND slot < $to! AND sessions > 0
          GROUP BY date_trunc($granularity!::text, slot AT TIME ZONE $timezone!::text), (slot AT TIME ZONE $timezone!::text) - (slot AT TIME ZONE 'UTC')`;

const WINDOW_EDGES = sql<IWindowEdgesQuery>`SELECT r.started_at AS "at!", r.total_connection_minutes AS minutes, 1 AS "sessions!",
                (SELECT count(*)::int FROM connections c WHERE c.room_id = r.id AND c.kind IS DISTINCT FROM 'translator') AS "participants!"
           FROM rooms r
          WHERE r.organization_id = $organizationId! AND r.started_at IS NOT NULL
            AND ((r.started_at >= $firstFrom! AND r.started_at < $firstTo!) OR (r.started_at >= $secondFrom! AND r.started_at < $secondTo!))`;

const SLOTS_BY_UTC_HOUR_PREPARED = prepared('usage_slots_by_utc_hour', SLOTS_BY_UTC_HOUR);
const SLOTS_BY_LOCAL_BUCKET_PREPARED = prepared('usage_slots_by_local_bucket', SLOTS_BY_LOCAL_BUCKET);
const WINDOW_EDGES_PREPARED = prepared('usage_window_edges', WINDOW_EDGES);

/** The reads behind `GET /v1/usage/overview`: the 15-minute rollup, and rooms at a window's edges. */
@Injectable()
export class UsageRepository {
  constructor(private readonly database: DatabaseClient) {}

  /** The organization's slots in `span` with a session, summed per group of `grouping`. */
  async slots(organizationId: string, span: Span, grouping: SlotGrouping, sql: Sql = this.database): Promise<UsageSample[]> {
    const rows =
      grouping.per === 'utc hour'
        ? await sql.rows(SLOTS_BY_UTC_HOUR_PREPARED, { organizationId, from: span.from, to: span.to })
        : await sql.rows(SLOTS_BY_LOCAL_BUCKET_PREPARED, {
            organizationId,
            from: span.from,
            to: span.to,
            granularity: grouping.granularity,
            timezone: grouping.timezone,
          });
    return rows.map((row) => ({
      atMs: row.at,
      minutes: row.minutes,
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
    const rows = await sql.rows(WINDOW_EDGES_PREPARED, {
      organizationId,
      firstFrom: first.from,
      firstTo: first.to,
      secondFrom: second.from,
      secondTo: second.to,
    });
    return rows.map((row) => ({ atMs: row.at.getTime(), minutes: row.minutes, sessions: row.sessions, participants: row.participants }));
  }
}
