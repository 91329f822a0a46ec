import { billedMinutes, chargeCents } from '@app/domain';
import { Inject, Injectable } from '@nestjs/common';
import { ROOM_TOTALS_KEY } from '../../database/hot-row-keys';
import { HotRowWrites } from '../../database/hot-row-writes';
import { Ledger } from '../billing/ledger';
import type { RoomRow } from '../rooms/room-queries';
import { UsageRollup } from '../usage/usage-rollup';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import { CustomerEvents } from '../customer-webhooks/customer-events';
import type { Sql } from '../../database/sql';

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
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly events: CustomerEvents,
  ) {}

  /** Closes one open connection; a connection already closed is left as it is (idempotent). */
  async close(tx: Sql, room: MeteredRoom, connectionId: number, leftAt: Date): Promise<void> {
    const [connection] = (await tx.rows(
      `SELECT id, organization_id, room_id, joined_at, cents_per_minute FROM connections WHERE id = $1 AND left_at IS NULL`,
      [connectionId],
    )) as OpenConnection[];
    if (connection) await this.closeOpen(tx, room, connection, leftAt);
  }

  /** Closes a connection known to be open, writing its minutes and charge with its end. */
  async closeOpen(tx: Sql, room: MeteredRoom, connection: OpenConnection, leftAt: Date): Promise<void> {
    await this.closeOpenMany(tx, [{ room, connection, leftAt }]);
  }

  /**
   * Closes connections known to be open, with one update: each ends at its `leftAt` (never before it
   * began), with its started minutes (capped) and its charge at the rate of its join. One already closed by
   * someone else is left as it is.
   */
  async closeOpenMany(tx: Sql, closes: { room: MeteredRoom; connection: OpenConnection; leftAt: Date }[]): Promise<void> {
    if (closes.length === 0) return;
    const ends = closes.map(({ connection, leftAt }) => {
      const end = new Date(Math.max(leftAt.getTime(), connection.joined_at.getTime()));
      const minutes = billedMinutes(connection.joined_at.getTime(), end.getTime(), this.config.maxConnectionMinutes);
      return { end, minutes, cents: chargeCents(minutes, connection.cents_per_minute) };
    });
    const updated = (await tx.rows(
      `UPDATE connections c SET left_at = v.left_at, connection_minutes = v.minutes, charged_cents = v.cents
         FROM unnest($1::bigint[], $2::timestamptz[], $3::int[], $4::bigint[]) AS v(id, left_at, minutes, cents)
        WHERE c.id = v.id AND c.left_at IS NULL RETURNING c.id, c.kind, c.identity, c.joined_at, c.left_at`,
      [closes.map((c) => c.connection.id), ends.map((e) => e.end), ends.map((e) => e.minutes), ends.map((e) => e.cents)],
    )) as { id: string | number; kind: string | null; identity: string; joined_at: Date; left_at: Date }[];
    const closed = new Set(updated.map((row) => Number(row.id)));
    for (const row of updated.filter((r) => r.kind === 'translator')) {
      const { room } = closes.find((c) => Number(c.connection.id) === Number(row.id))!;
      const data = {
        room_id: room.id,
        room_name: room.name,
        participant_identity: row.identity,
        joined_at: row.joined_at,
        left_at: row.left_at,
      };
      await this.events.emit(tx, { organizationId: room.organization_id, type: 'translator.left', roomId: room.id, data });
    }
    for (const [i, { room, connection, leftAt }] of closes.entries()) {
      if (closed.has(Number(connection.id))) await this.account(tx, room, connection, ends[i].minutes, ends[i].cents, leftAt);
    }
  }

  /** Closes every open connection of a room at `at`. */
  async closeAllInRoom(tx: Sql, room: MeteredRoom, at: Date): Promise<void> {
    const open = (await tx.rows(
      `SELECT id, organization_id, room_id, joined_at, cents_per_minute FROM connections WHERE room_id = $1 AND left_at IS NULL`,
      [room.id],
    )) as OpenConnection[];
    await this.closeOpenMany(
      tx,
      open.map((connection) => ({ room, connection, leftAt: at })),
    );
  }

  /** The room's totals, the usage rollup and the ledger follow every ended connection. */
  private async account(
    tx: Sql,
    room: MeteredRoom,
    connection: OpenConnection,
    minutes: number,
    cents: number,
    leftAt: Date,
  ): Promise<void> {
    await this.hot.addToGroup(tx, ROOM_TOTALS_KEY, room.id, [minutes, cents], (rooms) =>
      tx.rows(
        `UPDATE rooms r SET total_connection_minutes = r.total_connection_minutes + t.minutes, total_charged_cents = r.total_charged_cents + t.cents
           FROM unnest($1::uuid[], $2::int[], $3::bigint[]) AS t(id, minutes, cents) WHERE r.id = t.id`,
        [rooms.map((t) => t.row), rooms.map((t) => t.delta[0]), rooms.map((t) => t.delta[1])],
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
export type MeteredRoom = Pick<RoomRow, 'id' | 'name' | 'organization_id' | 'started_at'>;
