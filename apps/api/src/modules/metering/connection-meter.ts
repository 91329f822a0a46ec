import { chargeCents, startedMinutes } from '@app/domain';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { Ledger } from '../billing/ledger';
import { UsageRollup } from '../usage/usage-rollup';

interface ClosedConnection {
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
  ) {}

  /** Closes one open connection; a connection already closed is left as it is (idempotent). */
  async close(tx: EntityManager, connectionId: number, leftAt: Date): Promise<void> {
    const rows = (await tx.query(
      `UPDATE connections SET left_at = GREATEST($2::timestamptz, joined_at) WHERE id = $1 AND left_at IS NULL
       RETURNING id, organization_id, room_id, joined_at, cents_per_minute`,
      [connectionId, leftAt],
    )) as [ClosedConnection[], number];
    const closed = rows[0][0];
    if (closed) await this.bill(tx, closed, leftAt);
  }

  /** Closes every open connection of a room at `at`. */
  async closeAllInRoom(tx: EntityManager, roomId: string, at: Date): Promise<void> {
    const rows = (await tx.query(
      `UPDATE connections SET left_at = GREATEST($2::timestamptz, joined_at) WHERE room_id = $1 AND left_at IS NULL
       RETURNING id, organization_id, room_id, joined_at, cents_per_minute`,
      [roomId, at],
    )) as [ClosedConnection[], number];
    for (const closed of rows[0]) await this.bill(tx, closed, at);
  }

  private async bill(tx: EntityManager, connection: ClosedConnection, leftAt: Date): Promise<void> {
    const minutes = startedMinutes(connection.joined_at.getTime(), Math.max(leftAt.getTime(), connection.joined_at.getTime()));
    const cents = chargeCents(minutes, connection.cents_per_minute);
    await tx.query(`UPDATE connections SET connection_minutes = $2, charged_cents = $3 WHERE id = $1`, [connection.id, minutes, cents]);
    await tx.query(
      `UPDATE rooms SET total_connection_minutes = total_connection_minutes + $2, total_charged_cents = total_charged_cents + $3 WHERE id = $1`,
      [connection.room_id, minutes, cents],
    );
    await this.usage.addToRoom(tx, connection.room_id, { minutes, participants: 0 });
    await this.ledger.charge(tx, {
      organizationId: connection.organization_id,
      roomId: connection.room_id,
      connectionId: connection.id,
      cents,
      occurredAt: leftAt,
    });
  }
}
