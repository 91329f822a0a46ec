import type { TranslatorEventJob } from '@app/contracts';
import { combineLatencyReports } from '@app/domain/latency-stats';
import { Injectable } from '@nestjs/common';
import { isUUID } from 'class-validator';
import type { Actor } from '../../common/auth/actor';
import { ApiError } from '../../common/errors/api-error';
import type { DirectionStatsView, TranslationStatsView } from './translation-stats.dto';
import { TranslationStatsRepository, type TranslationEventRow } from './translation-stats.repository';
import { DatabaseClient } from '../../database/database.client';

@Injectable()
export class TranslationStatsService {
  constructor(
    private readonly stats: TranslationStatsRepository,
    private readonly database: DatabaseClient,
  ) {}

  /**
   * Stores one translator report once, keyed by its queue job id. A report naming a room that does
   * not exist, or whose LiveKit name does not match, is dropped (returns false).
   */
  async record(eventKey: string, event: TranslatorEventJob): Promise<boolean> {
    if (!isUUID(event.roomId)) return false;
    const latency = event.type === 'latency' ? event : null;
    return this.database.oneStatement((tx) =>
      this.stats.insert(
        {
          eventKey,
          roomId: event.roomId,
          livekitRoom: event.livekitRoom,
          type: event.type,
          occurredAt: event.at,
          direction: latency?.direction ?? null,
          p50Ms: latency ? Math.round(latency.p50Ms) : null,
          p95Ms: latency ? Math.round(latency.p95Ms) : null,
          samples: latency ? Math.round(latency.samples) : null,
          audioSeconds: latency?.audioSeconds ?? null,
        },
        tx,
      ),
    );
  }

  async forRoom(actor: Actor, roomId: string): Promise<TranslationStatsView> {
    if (!(await this.stats.roomExists(actor.organizationId, roomId))) throw ApiError.notFound('Room not found.');
    const rows = await this.stats.events(actor.organizationId, roomId);
    const joins = rows.filter((r) => r.type === 'joined');
    const leaves = rows.filter((r) => r.type === 'left');
    const byDirection = new Map<string, TranslationEventRow[]>();
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
            audioSeconds: r.audio_seconds ?? 0,
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
