import type { StreamingMode } from '@app/domain';

/** Column lists shared by the room reads, so list, detail and billing views agree. */
export const ROOM_COLUMNS = `r.id, r.name, r.sid, r.status, r.streaming_mode, r.started_at, r.ended_at,
  r.total_connection_minutes, r.total_charged_cents, r.created_at, u.email AS created_by`;

export const ROOM_FROM = `rooms r JOIN users u ON u.id = r.created_by_user_id`;

export const PARTICIPANT_COLUMNS = `c.id, c.identity AS participant_identity, c.kind AS participant_kind, c.languages,
  c.joined_at, c.left_at, c.connection_minutes, c.charged_cents`;

/** A room as `ROOM_COLUMNS` reads it (what the API shows of a room). */
export interface RoomViewRow {
  id: string;
  name: string;
  sid: string | null;
  status: 'created' | 'active' | 'ended';
  streaming_mode: StreamingMode | null;
  started_at: Date | null;
  ended_at: Date | null;
  total_connection_minutes: number;
  total_charged_cents: number;
  created_at: Date;
  created_by: string;
}

/** A connection as `PARTICIPANT_COLUMNS` reads it (one participant's usage). */
export interface ParticipantUsageRow {
  id: number;
  participant_identity: string;
  participant_kind: 'member' | 'guest' | 'translator' | null;
  languages: string[] | null;
  joined_at: Date;
  left_at: Date | null;
  connection_minutes: number | null;
  charged_cents: number | null;
}

/** Internal fields of a room row the services need besides its view. */
export interface RoomRow {
  id: string;
  organization_id: string;
  name: string;
  livekit_name: string;
  status: 'created' | 'active' | 'ended';
  started_at: Date | null;
  ended_at: Date | null;
  streaming_mode: StreamingMode | null;
  translator_present: boolean;
  translator_generation: number;
}

export const ROOM_ROW_COLUMNS = `id, organization_id, name, livekit_name, status, started_at, ended_at, streaming_mode, translator_present, translator_generation`;
