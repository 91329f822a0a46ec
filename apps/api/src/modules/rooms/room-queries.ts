/** Column lists shared by the room reads, so list, detail and billing views agree. */
export const ROOM_COLUMNS = `r.id, r.name, r.sid, r.status, r.streaming_mode, r.started_at, r.ended_at,
  r.total_connection_minutes, r.total_charged_cents, r.created_at, u.email AS created_by`;

export const ROOM_FROM = `rooms r JOIN users u ON u.id = r.created_by_user_id`;

export const PARTICIPANT_COLUMNS = `c.id, c.identity AS participant_identity, c.kind AS participant_kind, c.languages,
  c.joined_at, c.left_at, c.connection_minutes, c.charged_cents`;

/** Internal fields of a room row the services need besides its view. */
export interface RoomRow {
  id: string;
  organization_id: string;
  name: string;
  livekit_name: string;
  status: 'created' | 'active' | 'ended';
  started_at: Date | null;
  ended_at: Date | null;
  streaming_mode: 'mono' | 'dual' | null;
  translator_present: boolean;
  translator_generation: number;
}

export const ROOM_ROW_COLUMNS = `id, organization_id, name, livekit_name, status, started_at, ended_at, streaming_mode, translator_present, translator_generation`;

/**
 * The languages a room holds now, as an SQL expression: those of connected people, plus the fresh
 * reservations of tokens not yet connected (except `exceptIdentity`'s own, when given).
 */
export function heldLanguagesSql(roomId: string, exceptIdentity = 'NULL'): string {
  // held_languages (migration HeldLanguagesByIndex) finds them through indexes, however many tokens the room issued.
  return `held_languages(${roomId}, ${exceptIdentity})`;
}
