import { chargeCents, startedMinutes } from '@app/domain';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { roomTotalsKey } from '../../database/hot-row-keys';
import { HotRowWrites } from '../../database/hot-row-writes';
import { Ledger } from '../billing/ledger';
import type { RoomRow } from '../rooms/room-queries';
import { UsageRollup } from '../usage/usage-rollup';

export interface OpenConnection {
  id: number;
  organization_id: string;
  room_id: string;
  joined_at: Date;
  cents_per_minute: number;
}

/** Ends connections: minutes by the started minute, the charge at the rate of join time, one ledger row each. */
@Injectable()
export class ConnectionMeter {
  constructor(
    private readonly ledger: Ledger,
    private readonly usage: UsageRollup,
    private readonly hot: HotRowWrites,
  ) {}

  /** Closes one open connection; a connection already closed is left as it is (idempotent). */
  async close(tx: EntityManager, room: MeteredRoom, connectionId: number, leftAt: Date): Promise<void> {
    const [connection] = (await tx.query(
      `SELECT id, organization_id, room_id, joined_at, cents_per_minute FROM connections WHERE id = $1 AND left_at IS NULL`,
      [connectionId],
    )) as OpenConnection[];
    if (connection) await this.closeOpen(tx, room, connection, leftAt);
  }

  /** Closes a connection known to be open, writing its minutes and charge with its end. */
  async closeOpen(tx: EntityManager, room: MeteredRoom, connection: OpenConnection, leftAt: Date): Promise<void> {
    const end = new Date(Math.max(leftAt.getTime(), connection.joined_at.getTime()));
    const minutes = startedMinutes(connection.joined_at.getTime(), end.getTime());
    const cents = chargeCents(minutes, connection.cents_per_minute);
    const [updated] = (await tx.query(
      `UPDATE connections SET left_at = $2, connection_minutes = $3, charged_cents = $4 WHERE id = $1 AND left_at IS NULL RETURNING id`,
      [connection.id, end, minutes, cents],
    )) as [unknown[], number];
    if (updated.length > 0) await this.account(tx, room, connection, minutes, cents, leftAt);
  }

  /** Closes every open connection of a room at `at`. */
  async closeAllInRoom(tx: EntityManager, room: MeteredRoom, at: Date): Promise<void> {
    const rows = (await tx.query(
      `UPDATE connections SET left_at = GREATEST($2::timestamptz, joined_at) WHERE room_id = $1 AND left_at IS NULL
       RETURNING id, organization_id, room_id, joined_at, cents_per_minute`,
      [room.id, at],
    )) as [OpenConnection[], number];
    for (const closed of rows[0]) {
      const minutes = startedMinutes(closed.joined_at.getTime(), Math.max(at.getTime(), closed.joined_at.getTime()));
      const cents = chargeCents(minutes, closed.cents_per_minute);
      await tx.query(`UPDATE connections SET connection_minutes = $2, charged_cents = $3 WHERE id = $1`, [closed.id, minutes, cents]);
      await this.account(tx, room, closed, minutes, cents, at);
    }
  }

  /** The room's totals, the usage rollup and the ledger follow every ended connection. */
  private async account(
    tx: EntityManager,
    room: MeteredRoom,
    connection: OpenConnection,
    minutes: number,
    cents: number,
    leftAt: Date,
  ): Promise<void> {
    await this.hot.add(tx, roomTotalsKey(room.id), [minutes, cents], ([addedMinutes, addedCents]) =>
      tx.query(
        `UPDATE rooms SET total_connection_minutes = total_connection_minutes + $2, total_charged_cents = total_charged_cents + $3 WHERE id = $1`,
        [room.id, addedMinutes, addedCents],
      ),
    );
    await this.usage.addToRoom(tx, { organizationId: room.organization_id, startedAt: room.started_at }, { minutes, participants: 0 });
    await this.ledger.charge(tx, {
      organizationId: connection.organization_id,
      roomId: connection.room_id,
      connectionId: connection.id,
      cents,
      occurredAt: leftAt,
    });
  }
}

/** A locked room, as the meter needs it. */
export type MeteredRoom = Pick<RoomRow, 'id' | 'organization_id' | 'started_at'>;
