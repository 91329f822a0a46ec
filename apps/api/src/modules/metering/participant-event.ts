import type { ParticipantKind } from '@app/domain';

/** A connection as `participant.joined` / `participant.left` describe it. */
export interface ParticipantEventData {
  room_id: string;
  /** The room's name, as `translator.*` events carry it in `room_name`. */
  room: string;
  participant_identity: string;
  kind: 'participant' | 'translator';
  languages: string[] | null;
  joined_at: Date;
  left_at: Date | null;
  minutes: number | null;
  charged_cents: number | null;
}

/** The event's data for a connection that opened (no end yet) or closed with its minutes and charge. */
export function participantEventData(
  room: { id: string; name: string },
  connection: { kind: ParticipantKind | null; identity: string; languages: string[] | null; joinedAt: Date; leftAt?: Date },
  charge?: { minutes: number; cents: number },
): ParticipantEventData {
  return {
    room_id: room.id,
    room: room.name,
    participant_identity: connection.identity,
    kind: connection.kind === 'translator' ? 'translator' : 'participant',
    languages: connection.languages,
    joined_at: connection.joinedAt,
    left_at: connection.leftAt ?? null,
    minutes: charge?.minutes ?? null,
    charged_cents: charge?.cents ?? null,
  };
}
