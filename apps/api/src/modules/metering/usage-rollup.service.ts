import { Injectable } from '@nestjs/common';
import { HotRowWritesService } from '../../database/hot-row-writes.service';
import { ROOM_TOTALS_KEY, usageKey } from '../../database/hot-row-keys';
import type { Tx } from '../../database/sql';
import { UsageRollupsRepository, type SlotDelta } from './usage-rollups.repository';

/** A room whose `started_at` joins moved (from null, or earlier). */
export interface RoomStartChange {
  organizationId: string;
  roomId: string;
  previous: Date | null;
  /** What the joins themselves added, which the previous slot never counted. */
  joinedParticipants: number;
}

/**
 * Keeps usage_slots in step with rooms and connections, in the caller's transaction: a room counts
 * in the slot of its start, with its minutes (translator included) and its non-translator connections.
 */
@Injectable()
export class UsageRollupService {
  constructor(
    private readonly hot: HotRowWritesService,
    private readonly rollups: UsageRollupsRepository,
  ) {}

  /** After joins moved rooms' `started_at` (from null, or earlier): count or move each whole room. */
  async roomStartsChanged(tx: Tx, changes: RoomStartChange[]): Promise<void> {
    if (changes.length === 0) return;
    // The rooms' minutes are read back: the totals of connections closed earlier in this transaction first.
    await this.hot.flush(tx, ROOM_TOTALS_KEY);
    const rooms = await this.rollups.countedRooms(
      changes.map((c) => ({ organizationId: c.organizationId, id: c.roomId })),
      tx,
    );
    const roomOf = new Map(rooms.map((room) => [room.id, room]));
    for (const { roomId, previous, joinedParticipants } of changes) {
      const room = roomOf.get(roomId)!;
      const whole: SlotDelta = { minutes: room.minutes, sessions: 1, participants: room.participants };
      if (previous)
        await this.add(tx, room.organizationId, previous, negate({ ...whole, participants: whole.participants - joinedParticipants }));
      await this.add(tx, room.organizationId, room.startedAt!, whole);
    }
  }

  /** A connection or minutes added to a room that has already started (at `room.startedAt`). */
  async addToRoom(tx: Tx, room: { organizationId: string; startedAt: Date | null }, delta: Omit<SlotDelta, 'sessions'>): Promise<void> {
    if (room.startedAt) await this.add(tx, room.organizationId, room.startedAt, { ...delta, sessions: 0 });
  }

  /**
   * Adds to the slot holding `at`. The organization's slots are summed per slot and written last with
   * its usage version, which moves by one per write (cached overviews key on it), by one statement
   * (see HotRowWritesService.addToGroup).
   */
  private async add(tx: Tx, organizationId: string, at: Date, delta: SlotDelta): Promise<void> {
    const slot = Math.floor(at.getTime() / SLOT_MS) * (SLOT_MS / 1000);
    await this.hot.addToGroup(
      tx,
      usageKey(organizationId),
      String(slot).padStart(12, '0'),
      [delta.minutes, delta.sessions, delta.participants, 1],
      (rows) => {
        const slots = rows
          .map(({ row, delta: [minutes, sessions, participants] }) => ({ slotSeconds: Number(row), minutes, sessions, participants }))
          .filter((s) => s.minutes !== 0 || s.sessions !== 0 || s.participants !== 0);
        const writes = rows.reduce((sum, { delta }) => sum + delta[3], 0);
        return this.rollups.addToSlots(organizationId, slots, writes, tx);
      },
    );
  }
}

const SLOT_MS = 900_000;

function negate(delta: SlotDelta): SlotDelta {
  return { minutes: -delta.minutes, sessions: -delta.sessions, participants: -delta.participants };
}
