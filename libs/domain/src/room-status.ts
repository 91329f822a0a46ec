export const ROOM_STATUSES = ['created', 'active', 'ended'] as const;
export type RoomStatus = (typeof ROOM_STATUSES)[number];

/** What can happen to a room: a participant connects (its first or any later one), or it ends. */
export type RoomEvent = 'participant_connected' | 'room_ended';

/**
 * created → active on the first connection; created/active → ended; ended is final. Repeats change
 * nothing (a second connection keeps a room active, ending an ended room keeps it ended), and so does
 * a connection reported after the end: LiveKit's events come late and out of order, and such a join
 * was part of the call (its connection ends with the room). The caller applies a change only when the
 * answer differs from the current status.
 */
export function nextRoomStatus(current: RoomStatus, event: RoomEvent): RoomStatus {
  switch (event) {
    case 'participant_connected':
      return current === 'created' ? 'active' : current;
    case 'room_ended':
      return 'ended';
  }
}

/**
 * A live room is one that has not ended: names are unique among live rooms, only live rooms take
 * tokens and invites, want a translator or are ended by a request. SQL says the same with
 * `status <> 'ended'` (the partial indexes on live rooms need it in the statement).
 */
export function isLiveRoom(status: RoomStatus): boolean {
  return status !== 'ended';
}

export function isRoomStatus(value: unknown): value is RoomStatus {
  return typeof value === 'string' && (ROOM_STATUSES as readonly string[]).includes(value);
}
