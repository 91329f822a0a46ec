import { avgRoomMinutes, bucketBoundaries, echoOffsetDateTime, formatBoundary, summarize, type UsageWindow } from '@app/domain';
import { Injectable } from '@nestjs/common';
import type { Actor } from '../../common/auth/actor';
import { RequestValidationError } from '../../common/errors/validation-error';
import { VersionedCache } from '../../common/caching/versioned-cache';
import { OrganizationVersions } from '../../common/caching/organization-versions';
import { parsedWindowOf, type UsageOverviewQueryDto, type UsageOverviewView } from './usage.dto';
import { Database } from '../../database/database';

const SLOT_MS = 15 * 60_000;

interface Sample {
  /** An instant inside the sample's bucket: epoch milliseconds, or a start time. */
  at: number | Date;
  minutes: number;
  sessions: number;
  participants: number;
}

/**
 * Usage over a window from the 15-minute rollup; the at most two partial slots at the window's
 * edges are read from the rooms themselves, so the window's bounds are exact.
 */
@Injectable()
export class UsageService {
  /** Dashboards ask for the same windows again and again; the rollup changes far less often. */
  private readonly cache = new VersionedCache(32 * 1024 * 1024);

  private readonly versions: OrganizationVersions;

  constructor(private readonly database: Database) {
    this.versions = new OrganizationVersions(database, 'usage_versions');
  }

  /** The overview as JSON text, served from the cache while the organization's usage version holds. */
  async overviewJson(actor: Actor, query: UsageOverviewQueryDto): Promise<string> {
    const parsed = parsedWindowOf(query);
    if (!parsed.ok)
      throw new RequestValidationError(parsed.error.map((i) => ({ ...i, loc: ['query', ...i.loc], ctx: { ...(i.ctx ?? {}) } })));
    // The version is read before the rollup: an overview is never cached under a version older than its data.
    const version = await this.versions.read(actor.organizationId);
    const key = [actor.organizationId, query.starts_after, query.ends_before, query.granularity, query.timezone].map(String).join('\n');
    const cached = this.cache.get(key, version);
    if (cached !== null) return cached;
    const body = JSON.stringify(await this.overview(actor, query, parsed.value));
    this.cache.set(key, version, body);
    return body;
  }

  private async overview(actor: Actor, query: UsageOverviewQueryDto, window: UsageWindow): Promise<UsageOverviewView> {
    const starts = bucketBoundaries(window.startsAfter, window.endsBefore, window.granularity, window.timezone);
    const startMs = starts.map((start) => start.ms);
    // Where the zone is a whole number of hours from UTC throughout the window, UTC hours never
    // straddle a bucket, and the rollup can be summed per UTC hour without converting zones.
    const wholeHours = starts.every((start) => start.offsetMinutes % 60 === 0);
    const samples = await this.samples(actor.organizationId, window, wholeHours);
    const totals = starts.map(() => ({ minutes: 0, sessions: 0, participants: 0 }));
    for (const sample of samples) {
      const total = totals[lastAtOrBefore(startMs, typeof sample.at === 'number' ? sample.at : sample.at.getTime())];
      total.minutes += sample.minutes;
      total.sessions += sample.sessions;
      total.participants += sample.participants;
    }
    const summary = summarize(totals);
    return {
      // As sent, but a valid date-time even when an unencoded `+` arrived as a space.
      starts_after: echoOffsetDateTime(String(query.starts_after)),
      ends_before: echoOffsetDateTime(String(query.ends_before)),
      granularity: window.granularity,
      timezone: window.timezone,
      summary: { total_minutes: summary.totalMinutes, total_rooms: summary.totalRooms, total_participants: summary.totalParticipants },
      buckets: starts.map((start, i) => ({
        bucket: formatBoundary(start),
        minutes: totals[i].minutes,
        avg_room_minutes: avgRoomMinutes(totals[i].minutes, totals[i].sessions),
        sessions: totals[i].sessions,
      })),
    };
  }

  private async samples(organizationId: string, window: UsageWindow, wholeHours: boolean): Promise<Sample[]> {
    const start = window.startsAfter.getTime();
    const end = window.endsBefore.getTime();
    const firstFull = Math.ceil(start / SLOT_MS) * SLOT_MS;
    const lastFull = Math.max(firstFull, Math.floor(end / SLOT_MS) * SLOT_MS);
    const [slots, edges] = await Promise.all([
      // Slots are summed per UTC hour, or else per local bucket, in SQL; each group's earliest slot
      // lies in its bucket and places it there.
      this.database.rows<Sample>(
        {
          name: wholeHours ? 'usage_slots_by_utc_hour' : 'usage_slots_by_local_bucket',
          text: `SELECT (extract(epoch FROM min(slot)) * 1000)::float8 AS at, sum(minutes)::bigint AS minutes, sum(sessions)::int AS sessions,
                sum(participants)::int AS participants
           FROM usage_slots
          WHERE organization_id = $1 AND slot >= $2 AND slot < $3 AND sessions > 0
          GROUP BY ${
            wholeHours
              ? `date_trunc('hour', slot AT TIME ZONE 'UTC')`
              : `date_trunc($4::text, slot AT TIME ZONE $5::text), (slot AT TIME ZONE $5::text) - (slot AT TIME ZONE 'UTC')`
          }`,
        },
        wholeHours
          ? [organizationId, new Date(firstFull), new Date(lastFull)]
          : [organizationId, new Date(firstFull), new Date(lastFull), window.granularity, window.timezone],
      ),
      this.database.rows<Sample>(
        {
          name: 'usage_window_edges',
          text: `SELECT r.started_at AS at, r.total_connection_minutes AS minutes, 1 AS sessions,
                (SELECT count(*)::int FROM connections c WHERE c.room_id = r.id AND c.kind IS DISTINCT FROM 'translator') AS participants
           FROM rooms r
          WHERE r.organization_id = $1 AND r.started_at IS NOT NULL
            AND ((r.started_at >= $2 AND r.started_at < $3) OR (r.started_at >= $4 AND r.started_at < $5))`,
        },
        [organizationId, window.startsAfter, new Date(Math.min(firstFull, end)), new Date(Math.max(lastFull, start)), window.endsBefore],
      ),
    ]);
    return [...slots, ...edges];
  }
}

function lastAtOrBefore(sorted: number[], value: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (sorted[mid] <= value) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
