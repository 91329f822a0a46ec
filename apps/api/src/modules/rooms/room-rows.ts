import type { ParticipantKind, RoomStatus, StreamingMode } from '@app/domain';
import type { Narrowed } from '../../database/typed-sql';
import type { ILiveRoomResult, IParticipantsResult, IRoomViewResult } from './rooms.repository.types';

// The rows of the rooms aggregate as RoomsRepository returns them: types only (generated from its
// statements, with the columns a CHECK limits narrowed), its SQL stays in the repository.

/** What the API shows of a room. */
export type RoomViewRow = Narrowed<IRoomViewResult, { status: RoomStatus; streaming_mode: StreamingMode | null }>;

/** One participant's usage: a connection as the API shows it. */
export type ParticipantUsageRow = Narrowed<IParticipantsResult, { participant_kind: ParticipantKind | null }>;

/** Internal fields of a room row the services need besides its view. */
export type RoomRow = Narrowed<ILiveRoomResult, { status: RoomStatus; streaming_mode: StreamingMode | null }>;

/** A room and its participants, as GET /v1/rooms/{id} shows it (the body of a room's customer events). */
export type RoomBody = RoomViewRow & { participants: ParticipantUsageRow[] };

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
