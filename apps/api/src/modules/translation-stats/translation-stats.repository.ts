import type { TranslatorEventJob } from '@app/contracts';
import { Injectable } from '@nestjs/common';
import { DatabaseClient } from '../../database/database.client';
import type { Sql, Tx } from '../../database/sql';
import { type Narrowed, sql } from '../../database/typed-sql';
import type { IEventsQuery, IEventsResult, IInsertQuery, IRoomExistsQuery } from './translation-stats.repository.types';

/** One stored translator report of a room (`direction`: `source>target` on latency reports, null otherwise). */
export type TranslationEventRow = Narrowed<IEventsResult, { type: 'joined' | 'left' | 'latency' }>;

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
const INSERT = sql<IInsertQuery>`INSERT INTO translation_events (event_key, organization_id, room_id, type, occurred_at, direction, p50_ms, p95_ms, samples, audio_seconds)
  SELECT $eventKey!, r.organization_id, r.id, $type!, $occurredAt!, $direction, $p50Ms, $p95Ms, $samples, $audioSeconds
    FROM rooms r WHERE r.id = $roomId! AND r.livekit_name = $livekitRoom!
  ON CONFLICT (event_key) DO NOTHING RETURNING id`;

const ROOM_EXISTS = sql<IRoomExistsQuery>`SELECT id FROM rooms WHERE id = $roomId! AND organization_id = $organizationId!`;

const EVENTS = sql<IEventsQuery>`SELECT type, occurred_at, direction, p50_ms, p95_ms, samples, audio_seconds FROM translation_events
  WHERE room_id = $roomId! AND organization_id = $organizationId! ORDER BY occurred_at, id`;

/** The `translation_events` the translator agent reports, per room. */
@Injectable()
export class TranslationStatsRepository {
  constructor(private readonly database: DatabaseClient) {}

  /** False when the event key was stored already, or no room has this id and LiveKit name. */
  async insert(event: NewTranslationEvent, tx: Tx): Promise<boolean> {
    return (await tx.rows(INSERT, event)).length > 0;
  }

  async roomExists(organizationId: string, roomId: string, sql: Sql = this.database): Promise<boolean> {
    return (await sql.rows(ROOM_EXISTS, { roomId, organizationId })).length > 0;
  }

  /** The room's reports in the order they happened. */
  async events(organizationId: string, roomId: string, sql: Sql = this.database): Promise<TranslationEventRow[]> {
    return sql.rows<IEventsQuery, TranslationEventRow>(EVENTS, { roomId, organizationId });
  }
}
