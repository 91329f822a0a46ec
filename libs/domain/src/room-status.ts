import { DomainError } from './errors';

export const ROOM_STATUSES = ['created', 'active', 'ended'] as const;
export type RoomStatus = (typeof ROOM_STATUSES)[number];

/** What can happen to a room: its first (or any later) participant connects, or it ends. */
export type RoomEvent = 'participant_connected' | 'room_ended';

export class IllegalRoomTransition extends DomainError {
  readonly code = 'illegal_room_transition';

  constructor(
    readonly from: RoomStatus,
    readonly event: RoomEvent,
  ) {
    super(`A room that has ended cannot take the event ${event}.`);
  }
}

/**
 * created → active on the first connection; created/active → ended; ended is final.
 * Repeats are no-ops (a second connection keeps a room active, ending an ended room keeps it ended),
 * so redelivered webhooks and retried DELETEs are safe. Throws IllegalRoomTransition only for a
 * connection to an ended room.
 */
export function nextRoomStatus(current: RoomStatus, event: RoomEvent): RoomStatus {
  switch (event) {
    case 'participant_connected':
      if (current === 'ended') throw new IllegalRoomTransition(current, event);
      return 'active';
    case 'room_ended':
      return 'ended';
  }
}

/** A live room is one that has not ended: names are unique among live rooms, and only live rooms take tokens. */
export function isLiveRoom(status: RoomStatus): boolean {
  return status !== 'ended';
}

export function isRoomStatus(value: unknown): value is RoomStatus {
  return typeof value === 'string' && (ROOM_STATUSES as readonly string[]).includes(value);
}
