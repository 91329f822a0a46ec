import type { TranslatorEventJob } from '@app/contracts';
import { Injectable } from '@nestjs/common';
import { DatabaseClient } from '../../database/database.client';
import type { Sql } from '../../database/sql';

/** One stored translator report of a room. */
export interface TranslationEventRow {
  type: 'joined' | 'left' | 'latency';
  occurred_at: Date;
  /** `source>target` on latency reports, null otherwise. */
  direction: string | null;
  p50_ms: number | null;
  p95_ms: number | null;
  samples: number | null;
  audio_seconds: number | null;
}

/** A translator report to store, for the room it names (whose LiveKit name must match). */
export interface NewTranslationEvent {
  eventKey: string;
  roomId: string;
  livekitRoom: string;
  type: TranslatorEventJob['type'];
  occurredAt: string;
  direction: string | null;
  p50Ms: number | null;
  p95Ms: number | null;
  samples: number | null;
  audioSeconds: number | null;
}

// The organization is the room's: a report carries no organization of its own.
const INSERT = `INSERT INTO translation_events (event_key, organization_id, room_id, type, occurred_at, direction, p50_ms, p95_ms, samples, audio_seconds)
  SELECT $1, r.organization_id, r.id, $4, $5, $6, $7, $8, $9, $10 FROM rooms r WHERE r.id = $2 AND r.livekit_name = $3
  ON CONFLICT (event_key) DO NOTHING RETURNING id`;

const ROOM_EXISTS = `SELECT id FROM rooms WHERE id = $1 AND organization_id = $2`;

const EVENTS = `SELECT type, occurred_at, direction, p50_ms, p95_ms, samples, audio_seconds FROM translation_events
  WHERE room_id = $1 AND organization_id = $2 ORDER BY occurred_at, id`;

/** The `translation_events` the translator agent reports, per room. */
@Injectable()
export class TranslationStatsRepository {
  constructor(private readonly database: DatabaseClient) {}

  /** False when the event key was stored already, or no room has this id and LiveKit name. */
  async insert(event: NewTranslationEvent, sql: Sql = this.database): Promise<boolean> {
    const rows = await sql.rows<{ id: string }>(INSERT, [
      event.eventKey,
      event.roomId,
      event.livekitRoom,
      event.type,
      event.occurredAt,
      event.direction,
      event.p50Ms,
      event.p95Ms,
      event.samples,
      event.audioSeconds,
    ]);
    return rows.length > 0;
  }

  async roomExists(organizationId: string, roomId: string, sql: Sql = this.database): Promise<boolean> {
    return (await sql.rows(ROOM_EXISTS, [roomId, organizationId])).length > 0;
  }

  /** The room's reports in the order they happened. */
  async events(organizationId: string, roomId: string, sql: Sql = this.database): Promise<TranslationEventRow[]> {
    return sql.rows<TranslationEventRow>(EVENTS, [roomId, organizationId]);
  }
}
