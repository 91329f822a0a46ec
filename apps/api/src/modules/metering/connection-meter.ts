import { chargeCents, startedMinutes } from '@app/domain';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { Ledger } from '../billing/ledger';
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
  ) {}

  /** Closes one open connection; a connection already closed is left as it is (idempotent). */
  async close(tx: EntityManager, connectionId: number, leftAt: Date): Promise<void> {
    const [connection] = (await tx.query(
      `SELECT id, organization_id, room_id, joined_at, cents_per_minute FROM connections WHERE id = $1 AND left_at IS NULL`,
      [connectionId],
    )) as OpenConnection[];
    if (connection) await this.closeOpen(tx, connection, leftAt);
  }

  /** Closes a connection known to be open, writing its minutes and charge with its end. */
  async closeOpen(tx: EntityManager, connection: OpenConnection, leftAt: Date): Promise<void> {
    const end = new Date(Math.max(leftAt.getTime(), connection.joined_at.getTime()));
    const minutes = startedMinutes(connection.joined_at.getTime(), end.getTime());
    const cents = chargeCents(minutes, connection.cents_per_minute);
    const [updated] = (await tx.query(
      `UPDATE connections SET left_at = $2, connection_minutes = $3, charged_cents = $4 WHERE id = $1 AND left_at IS NULL RETURNING id`,
      [connection.id, end, minutes, cents],
    )) as [unknown[], number];
    if (updated.length > 0) await this.account(tx, connection, minutes, cents, leftAt);
  }

  /** Closes every open connection of a room at `at`. */
  async closeAllInRoom(tx: EntityManager, roomId: string, at: Date): Promise<void> {
    const rows = (await tx.query(
      `UPDATE connections SET left_at = GREATEST($2::timestamptz, joined_at) WHERE room_id = $1 AND left_at IS NULL
       RETURNING id, organization_id, room_id, joined_at, cents_per_minute`,
      [roomId, at],
    )) as [OpenConnection[], number];
    for (const closed of rows[0]) {
      const minutes = startedMinutes(closed.joined_at.getTime(), Math.max(at.getTime(), closed.joined_at.getTime()));
      const cents = chargeCents(minutes, closed.cents_per_minute);
      await tx.query(`UPDATE connections SET connection_minutes = $2, charged_cents = $3 WHERE id = $1`, [closed.id, minutes, cents]);
      await this.account(tx, closed, minutes, cents, at);
    }
  }

  /** The room's totals, the usage rollup and the ledger follow every ended connection. */
  private async account(tx: EntityManager, connection: OpenConnection, minutes: number, cents: number, leftAt: Date): Promise<void> {
    const [[room]] = (await tx.query(
      `UPDATE rooms SET total_connection_minutes = total_connection_minutes + $2, total_charged_cents = total_charged_cents + $3
        WHERE id = $1 RETURNING organization_id AS "organizationId", started_at AS "startedAt"`,
      [connection.room_id, minutes, cents],
    )) as [{ organizationId: string; startedAt: Date | null }[], number];
    await this.usage.addToRoom(tx, room, { minutes, participants: 0 });
    await this.ledger.charge(tx, {
      organizationId: connection.organization_id,
      roomId: connection.room_id,
      connectionId: connection.id,
      cents,
      occurredAt: leftAt,
    });
  }
}
