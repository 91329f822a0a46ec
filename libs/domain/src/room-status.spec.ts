import { isLiveRoom, isRoomStatus, nextRoomStatus, type RoomEvent, type RoomStatus } from './room-status';

describe('nextRoomStatus', () => {
  it.each<[RoomStatus, RoomEvent, RoomStatus]>([
    ['created', 'participant_connected', 'active'],
    ['active', 'participant_connected', 'active'],
    ['created', 'room_ended', 'ended'],
    ['active', 'room_ended', 'ended'],
    ['ended', 'room_ended', 'ended'],
    // a join reported after the end was part of the call: the room stays ended
    ['ended', 'participant_connected', 'ended'],
  ])('%s + %s → %s', (from, event, to) => {
    expect(nextRoomStatus(from, event)).toBe(to);
  });
});

describe('isLiveRoom / isRoomStatus', () => {
  it.each<[RoomStatus, boolean]>([
    ['created', true],
    ['active', true],
    ['ended', false],
  ])('%s live: %s', (status, live) => {
    expect(isLiveRoom(status)).toBe(live);
  });

  it.each([
    ['created', true],
    ['ended', true],
    ['finished', false],
    [null, false],
  ])('isRoomStatus(%j) → %s', (value, expected) => {
    expect(isRoomStatus(value)).toBe(expected);
  });
});
