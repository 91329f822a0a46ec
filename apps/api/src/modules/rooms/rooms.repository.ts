import { Injectable } from '@nestjs/common';
import type { ParticipantKind } from '@app/domain';
import { Database } from '../../database/database';
import type { Sql } from '../../database/sql';
import { ROOM_ROW_COLUMNS, type RoomRow } from './room-queries';

/**
 * Rooms with their join tokens and held languages: every statement on `rooms`, `room_tokens` and the
 * languages they hold, each scoped to the organization in the statement itself.
 */
@Injectable()
export class RoomsRepository {
  constructor(private readonly database: Database) {}

  // Requests: creating, reading, listing, ending rooms; admitting join tokens.

  // Lifecycle: ending a room, translator presence (driven by LiveKit events).

  /**
   * Locks the rooms with these LiveKit names, in id order (two batches never deadlock); names not
   * found are left out. A LiveKit event names its room only by its LiveKit name, unique across
   * organizations (it begins with the organization's id): each later statement on a room found here
   * is scoped to the organization it carries.
   */
  async lockByLiveKitNames(livekitNames: string[], sql: Sql = this.database): Promise<RoomRow[]> {
    return sql.rows<RoomRow>(LOCK_BY_LIVEKIT_NAMES, [livekitNames]);
  }

  /** Locks the organization's room for a change of its lifecycle; null when it has no such room. */
  async lockForLifecycle(organizationId: string, roomId: string, sql: Sql = this.database): Promise<RoomRow | null> {
    const [room] = await sql.rows<RoomRow>(LOCK_BY_ID, [roomId, organizationId]);
    return room ?? null;
  }

  /** Joins moved these rooms' start (and made those that `starts` active). */
  async activate(
    changes: { organizationId: string; roomId: string; starts: boolean; startedAt: Date }[],
    sql: Sql = this.database,
  ): Promise<void> {
    if (changes.length === 0) return;
    await sql.rows(ACTIVATE, [
      changes.map((c) => c.organizationId),
      changes.map((c) => c.roomId),
      changes.map((c) => c.starts),
      changes.map((c) => c.startedAt),
    ]);
  }

  /**
   * Ends the room at `at`, but never before it started or was created; returns the end it was given
   * (null when the organization has no such room).
   */
  async end(organizationId: string, roomId: string, at: Date, sql: Sql = this.database): Promise<Date | null> {
    const [row] = await sql.rows<{ ended_at: Date }>(END, [roomId, organizationId, at]);
    return row?.ended_at ?? null;
  }

  /** Flips the translator presence of these rooms, each moving to its next generation. */
  async flipTranslatorPresence(rooms: { organizationId: string; id: string }[], sql: Sql = this.database): Promise<void> {
    if (rooms.length === 0) return;
    await sql.rows(FLIP_TRANSLATOR_PRESENCE, [rooms.map((room) => room.organizationId), rooms.map((room) => room.id)]);
  }

  /**
   * The participants connected: their tokens' short reservation of languages is over (the connection
   * now holds them). Returns the tokens found, with the kind and languages they were issued with.
   */
  async releaseReservations(
    participants: { organizationId: string; roomId: string; identity: string }[],
    sql: Sql = this.database,
  ): Promise<ConnectedToken[]> {
    if (participants.length === 0) return [];
    const rows = await sql.rows<{ room_id: string; identity: string; kind: ParticipantKind; languages: string[] }>(RELEASE_RESERVATIONS, [
      participants.map((p) => p.organizationId),
      participants.map((p) => p.roomId),
      participants.map((p) => p.identity),
    ]);
    return rows.map((row) => ({ roomId: row.room_id, identity: row.identity, kind: row.kind, languages: row.languages }));
  }
}

/** A participant's join token, as the connection takes it over. */
export interface ConnectedToken {
  roomId: string;
  identity: string;
  kind: ParticipantKind;
  languages: string[];
}

// Lifecycle statements (the methods after "Lifecycle:").
const LOCK_BY_LIVEKIT_NAMES = `SELECT ${ROOM_ROW_COLUMNS} FROM rooms WHERE livekit_name = ANY($1) ORDER BY id FOR NO KEY UPDATE`;

const LOCK_BY_ID = `SELECT ${ROOM_ROW_COLUMNS} FROM rooms WHERE id = $1 AND organization_id = $2 FOR NO KEY UPDATE`;

const ACTIVATE = `UPDATE rooms r SET status = CASE WHEN c.starts THEN 'active' ELSE r.status END, started_at = c.started_at
  FROM unnest($1::uuid[], $2::uuid[], $3::boolean[], $4::timestamptz[]) AS c(organization_id, id, starts, started_at)
  WHERE r.id = c.id AND r.organization_id = c.organization_id`;

const END = `UPDATE rooms SET status = 'ended', ended_at = GREATEST($3::timestamptz, started_at, created_at)
  WHERE id = $1 AND organization_id = $2 RETURNING ended_at`;

const FLIP_TRANSLATOR_PRESENCE = `UPDATE rooms r SET translator_present = NOT r.translator_present, translator_generation = r.translator_generation + 1
  FROM unnest($1::uuid[], $2::uuid[]) AS f(organization_id, id) WHERE r.id = f.id AND r.organization_id = f.organization_id`;

// room_tokens has no organization of its own: its room's is checked.
const RELEASE_RESERVATIONS = `UPDATE room_tokens t SET reserved_until = NULL
  FROM unnest($1::uuid[], $2::uuid[], $3::text[]) AS j(organization_id, room_id, identity)
  JOIN rooms r ON r.id = j.room_id AND r.organization_id = j.organization_id
  WHERE t.room_id = j.room_id AND t.identity = j.identity RETURNING t.room_id, t.identity, t.kind, t.languages`;
