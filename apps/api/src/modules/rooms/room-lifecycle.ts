import { Injectable } from '@nestjs/common';
import { Outbox, type OutboxJob } from '../../queue/outbox';
import { CustomerEvents } from '../customer-webhooks/customer-events';
import { ConnectionMeter } from '../metering/connection-meter';
import { ROOM_ROW_COLUMNS, type RoomRow } from './room-queries';
import { TranslatorPresence } from './translator-presence';
import { Database } from '../../database/database';
import type { Sql } from '../../database/sql';

/** Moves a room through created → active → ended, under the room's row lock. */
@Injectable()
export class RoomLifecycle {
  constructor(
    private readonly database: Database,
    private readonly meter: ConnectionMeter,
    private readonly translator: TranslatorPresence,
    private readonly outbox: Outbox,
    private readonly events: CustomerEvents,
  ) {}

  async lock(tx: Sql, where: { id: string } | { livekitName: string }): Promise<RoomRow | null> {
    const [column, value] = 'id' in where ? ['id', where.id] : ['livekit_name', where.livekitName];
    const rows = (await tx.rows(`SELECT ${ROOM_ROW_COLUMNS} FROM rooms WHERE ${column} = $1 FOR NO KEY UPDATE`, [value])) as RoomRow[];
    return rows[0] ?? null;
  }

  /** Locks the rooms with these LiveKit names, in id order; rooms not found are left out. */
  async lockAll(tx: Sql, livekitNames: string[]): Promise<RoomRow[]> {
    return (await tx.rows(`SELECT ${ROOM_ROW_COLUMNS} FROM rooms WHERE livekit_name = ANY($1) ORDER BY id FOR NO KEY UPDATE`, [
      livekitNames,
    ])) as RoomRow[];
  }

  /** Ends the room at `at`, closing its open connections there; ending an ended room changes nothing. */
  async end(roomId: string, at: Date): Promise<void> {
    const jobs = await this.database.transaction(async (tx) => {
      const room = await this.lock(tx, { id: roomId });
      if (!room) return [];
      return this.endLocked(tx, room, at);
    });
    await this.outbox.flush(jobs);
  }

  async endLocked(tx: Sql, room: RoomRow, at: Date): Promise<OutboxJob[]> {
    if (room.status === 'ended') return [];
    // Never before the room started or was created; its open connections end exactly then.
    const [ended] = (await tx.rows(
      `UPDATE rooms SET status = 'ended', ended_at = GREATEST($2::timestamptz, started_at, created_at) WHERE id = $1 RETURNING ended_at`,
      [room.id, at],
    )) as { ended_at: Date }[];
    room.status = 'ended';
    room.ended_at = ended.ended_at;
    await this.meter.closeAllInRoom(tx, room, ended.ended_at);
    await this.events.emit(tx, { organizationId: room.organization_id, type: 'room.ended', roomId: room.id });
    const jobs = await this.translator.reconcile(tx, room);
    await this.outbox.write(tx, jobs);
    return jobs;
  }
}
