import type { TranslatorEventJob } from '@app/contracts';
import { combineLatencyReports } from '@app/domain/latency-stats';
import { Injectable } from '@nestjs/common';
import type { Actor } from '../../common/auth/actor';
import { ApiError } from '../../common/errors/api-error';
import type { DirectionStatsView, TranslationStatsView } from './translation-stats.dto';
import { Database } from '../../database/database';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface EventRow {
  type: 'joined' | 'left' | 'latency';
  occurred_at: Date;
  direction: string | null;
  p50_ms: number | null;
  p95_ms: number | null;
  samples: number | null;
  audio_seconds: number | null;
}

@Injectable()
export class TranslationStatsService {
  constructor(private readonly database: Database) {}

  /**
   * Stores one translator report once, keyed by its queue job id. A report naming a room that does
   * not exist, or whose LiveKit name does not match, is dropped (returns false).
   */
  async record(eventKey: string, event: TranslatorEventJob): Promise<boolean> {
    if (!UUID.test(event.roomId)) return false;
    const latency = event.type === 'latency' ? event : null;
    const rows: unknown[] = await this.database.rows(
      `INSERT INTO translation_events (event_key, organization_id, room_id, type, occurred_at, direction, p50_ms, p95_ms, samples, audio_seconds)
       SELECT $1, r.organization_id, r.id, $4, $5, $6, $7, $8, $9, $10 FROM rooms r WHERE r.id = $2 AND r.livekit_name = $3
       ON CONFLICT (event_key) DO NOTHING RETURNING id`,
      [
        eventKey,
        event.roomId,
        event.livekitRoom,
        event.type,
        event.at,
        latency?.direction ?? null,
        latency ? Math.round(latency.p50Ms) : null,
        latency ? Math.round(latency.p95Ms) : null,
        latency ? Math.round(latency.samples) : null,
        latency?.audioSeconds ?? null,
      ],
    );
    return rows.length > 0;
  }

  async forRoom(actor: Actor, roomId: string): Promise<TranslationStatsView> {
    const [room] = (await this.database.rows(`SELECT id FROM rooms WHERE id = $1 AND organization_id = $2`, [
      roomId,
      actor.organizationId,
    ])) as { id: string }[];
    if (!room) throw ApiError.notFound('Room not found.');
    const rows: EventRow[] = await this.database.rows(
      `SELECT type, occurred_at, direction, p50_ms, p95_ms, samples, audio_seconds FROM translation_events
        WHERE room_id = $1 AND organization_id = $2 ORDER BY occurred_at, id`,
      [roomId, actor.organizationId],
    );
    const joins = rows.filter((r) => r.type === 'joined');
    const leaves = rows.filter((r) => r.type === 'left');
    const byDirection = new Map<string, EventRow[]>();
    for (const row of rows) {
      if (row.type !== 'latency' || !row.direction) continue;
      byDirection.set(row.direction, [...(byDirection.get(row.direction) ?? []), row]);
    }
    const directions: DirectionStatsView[] = [...byDirection.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([direction, list]) => {
        const combined = combineLatencyReports(
          list.map((r) => ({
            p50Ms: r.p50_ms ?? 0,
            p95Ms: r.p95_ms ?? 0,
            samples: r.samples ?? 0,
            audioSeconds: Number(r.audio_seconds ?? 0),
          })),
        );
        const [source = '', target = ''] = direction.split('>');
        return {
          direction,
          source_language: source,
          target_language: target,
          samples: combined.samples,
          p50_ms: combined.p50Ms,
          p95_ms: combined.p95Ms,
          audio_seconds: combined.audioSeconds,
          last_reported_at: list[list.length - 1]!.occurred_at,
        };
      });
    return {
      room_id: roomId,
      translator_present: joins.length > leaves.length,
      translator_sessions: joins.length,
      first_joined_at: joins[0]?.occurred_at ?? null,
      last_left_at: leaves[leaves.length - 1]?.occurred_at ?? null,
      audio_seconds: Math.round(directions.reduce((sum, d) => sum + d.audio_seconds, 0) * 1000) / 1000,
      directions,
    };
  }
}
