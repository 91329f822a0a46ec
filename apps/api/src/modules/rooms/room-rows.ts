import type { StreamingMode } from '@app/domain';

// The rows of the rooms aggregate as RoomsRepository returns them: types only, its SQL stays in the repository.

/** What the API shows of a room. */
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

/** One participant's usage: a connection as the API shows it. */
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

/** A room and its participants, as GET /v1/rooms/{id} shows it (the body of a room's customer events). */
export interface RoomBody {
  id: string;
  participants: Record<string, unknown>[];
  [column: string]: unknown;
}

/** What a room's totals move by: the minutes and cents of the connections that ended in it. */
export interface RoomTotalsDelta {
  organizationId: string;
  roomId: string;
  minutes: number;
  cents: number;
}

/** An ended room whose transcript was just closed. */
export interface ClosedTranscriptRoom {
  organizationId: string;
  name: string;
  startedAt: Date | null;
  endedAt: Date | null;
}
