import { Injectable } from '@nestjs/common';
import { HotRowWrites } from '../../database/hot-row-writes';
import { ROOM_TOTALS_KEY, usageSlotKey, usageVersionKey } from '../../database/hot-row-keys';
import type { Sql } from '../../database/sql';

interface Delta {
  minutes: number;
  sessions: number;
  participants: number;
}

/**
 * Keeps usage_slots in step with rooms and connections, in the caller's transaction: a room counts
 * in the slot of its start, with its minutes (translator included) and its non-translator connections.
 */
@Injectable()
export class UsageRollup {
  constructor(private readonly hot: HotRowWrites) {}

  /**
   * After joins moved rooms' `started_at` (from null, or earlier): count or move each whole room.
   * `joinedParticipants` is what the joins themselves added, which the previous slot never counted.
   */
  async roomStartsChanged(tx: Sql, changes: { roomId: string; previous: Date | null; joinedParticipants: number }[]): Promise<void> {
    if (changes.length === 0) return;
    await this.hot.flush(tx, ROOM_TOTALS_KEY);
    const rooms = (await tx.rows(
      `SELECT r.id, r.organization_id, r.started_at, r.total_connection_minutes AS minutes,
              (SELECT count(*)::int FROM connections c WHERE c.room_id = r.id AND c.kind IS DISTINCT FROM 'translator') AS participants
         FROM rooms r WHERE r.id = ANY($1)`,
      [changes.map((c) => c.roomId)],
    )) as { id: string; organization_id: string; started_at: Date; minutes: number; participants: number }[];
    const roomOf = new Map(rooms.map((room) => [room.id, room]));
    for (const { roomId, previous, joinedParticipants } of changes) {
      const room = roomOf.get(roomId)!;
      const whole: Delta = { minutes: room.minutes, sessions: 1, participants: room.participants };
      if (previous)
        await this.add(tx, room.organization_id, previous, negate({ ...whole, participants: whole.participants - joinedParticipants }));
      await this.add(tx, room.organization_id, room.started_at, whole);
    }
  }

  /** A connection or minutes added to a room that has already started (at `room.startedAt`). */
  async addToRoom(tx: Sql, room: { organizationId: string; startedAt: Date | null }, delta: Omit<Delta, 'sessions'>): Promise<void> {
    if (room.startedAt) await this.add(tx, room.organizationId, room.startedAt, { ...delta, sessions: 0 });
  }

  /** Adds to the slot holding `at`; slots are summed per row and written last (see HotRowWrites). */
  private async add(tx: Sql, organizationId: string, at: Date, delta: Delta): Promise<void> {
    const slot = Math.floor(at.getTime() / SLOT_MS) * (SLOT_MS / 1000);
    await this.hot.add(
      tx,
      usageSlotKey(organizationId, slot),
      [delta.minutes, delta.sessions, delta.participants],
      ([minutes, sessions, participants]) =>
        tx.rows(
          `INSERT INTO usage_slots (organization_id, slot, minutes, sessions, participants) VALUES ($1, to_timestamp($2), $3, $4, $5)
       ON CONFLICT (organization_id, slot) DO UPDATE SET minutes = usage_slots.minutes + EXCLUDED.minutes,
         sessions = usage_slots.sessions + EXCLUDED.sessions, participants = usage_slots.participants + EXCLUDED.participants`,
          [organizationId, slot, minutes, sessions, participants],
        ),
    );
    // Moves with every write to the rollup, in the same transaction: cached overviews key on it.
    await this.hot.add(tx, usageVersionKey(organizationId), [1], ([writes]) =>
      tx.rows(
        `INSERT INTO usage_versions (organization_id, version) VALUES ($1, $2)
         ON CONFLICT (organization_id) DO UPDATE SET version = usage_versions.version + EXCLUDED.version`,
        [organizationId, writes],
      ),
    );
  }
}

const SLOT_MS = 900_000;

function negate(delta: Delta): Delta {
  return { minutes: -delta.minutes, sessions: -delta.sessions, participants: -delta.participants };
}
