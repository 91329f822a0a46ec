import { avgRoomMinutes, bucketBoundaries, echoOffsetDateTime, formatBoundary, summarize, type UsageWindow } from '@app/domain';
import { Inject, Injectable } from '@nestjs/common';
import type { Actor } from '../../common/auth/actor';
import { RequestValidationError } from '../../common/errors/validation-error';
import type { VersionedCache } from '../../common/caching/versioned-cache';
import { USAGE_OVERVIEWS } from '../../common/caching/caching.module';
import { OrganizationVersionsRepository } from '../../common/caching/organization-versions.repository';
import { parsedWindowOf, type UsageOverviewQueryDto, type UsageOverviewView } from './usage.dto';
import { UsageRepository, type UsageSample } from './usage.repository';

const SLOT_MS = 15 * 60_000;

/**
 * Usage over a window from the 15-minute rollup; the at most two partial slots at the window's
 * edges are read from the rooms themselves, so the window's bounds are exact.
 */
@Injectable()
export class UsageService {
  constructor(
    @Inject(USAGE_OVERVIEWS) private readonly cache: VersionedCache,
    private readonly versions: OrganizationVersionsRepository,
    private readonly usage: UsageRepository,
  ) {}

  /** The overview as JSON text, served from the cache while the organization's usage version holds. */
  async overviewJson(actor: Actor, query: UsageOverviewQueryDto): Promise<string> {
    const parsed = parsedWindowOf(query);
    if (!parsed.ok)
      throw new RequestValidationError(parsed.error.map((i) => ({ ...i, loc: ['query', ...i.loc], ctx: { ...(i.ctx ?? {}) } })));
    // The version is read before the rollup: an overview is never cached under a version older than its data.
    const version = await this.versions.usageVersion(actor.organizationId);
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
      const total = totals[lastAtOrBefore(startMs, sample.atMs)];
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

  private async samples(organizationId: string, window: UsageWindow, wholeHours: boolean): Promise<UsageSample[]> {
    const start = window.startsAfter.getTime();
    const end = window.endsBefore.getTime();
    const firstFull = Math.ceil(start / SLOT_MS) * SLOT_MS;
    const lastFull = Math.max(firstFull, Math.floor(end / SLOT_MS) * SLOT_MS);
    const [slots, edges] = await Promise.all([
      // Slots are summed per UTC hour, or else per local bucket, in SQL.
      this.usage.slots(
        organizationId,
        { from: new Date(firstFull), to: new Date(lastFull) },
        wholeHours ? { per: 'utc hour' } : { per: 'local bucket', granularity: window.granularity, timezone: window.timezone },
      ),
      this.usage.roomsStartedWithin(organizationId, [
        { from: window.startsAfter, to: new Date(Math.min(firstFull, end)) },
        { from: new Date(Math.max(lastFull, start)), to: window.endsBefore },
      ]),
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
