import { connectionCharge } from '@app/domain';
import { Inject, Injectable } from '@nestjs/common';
import { ROOM_TOTALS_KEY } from '../../database/hot-row-keys';
import { HotRowWritesService } from '../../database/hot-row-writes.service';
import { LedgerService } from '../billing/ledger.service';
import type { RoomRow } from '../rooms/room-rows';
import { RoomsRepository } from '../rooms/rooms.repository';
import { UsageRollupService } from './usage-rollup.service';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import { CustomerEventsPublisher } from '../customer-webhooks/customer-events.publisher';
import type { Tx } from '../../database/sql';
import { ConnectionsRepository, type CorrectedConnection, type OpenConnection } from './connections.repository';
import { participantEventData } from './participant-event';

export type { OpenConnection } from './connections.repository';

/**
 * Ends connections: minutes by the started minute, the charge at the rate of join time, one ledger
 * row each. A connection ends at the earliest end reported for it: an end reported later that is
 * earlier than the one recorded moves it there and corrects the charge with a new ledger row.
 */
@Injectable()
export class ConnectionMeterService {
  constructor(
    private readonly ledger: LedgerService,
    private readonly usage: UsageRollupService,
    private readonly hot: HotRowWritesService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly events: CustomerEventsPublisher,
    private readonly connections: ConnectionsRepository,
    private readonly rooms: RoomsRepository,
  ) {}

  /** Closes one open connection; a connection already closed is left as it is (idempotent). */
  async close(tx: Tx, room: MeteredRoom, connectionId: number, leftAt: Date): Promise<void> {
    const connection = await this.connections.findOpen(room.organization_id, connectionId, tx);
    if (connection) await this.closeOpenMany(tx, [{ room, connection, leftAt }]);
  }

  /**
   * Closes connections known to be open, with one update: each ends at its `leftAt` (never before it
   * began), with its started minutes (capped) and its charge at the rate of its join. One already closed by
   * someone else is left as it is.
   */
  async closeOpenMany(tx: Tx, closes: { room: MeteredRoom; connection: OpenConnection; leftAt: Date }[]): Promise<void> {
    if (closes.length === 0) return;
    const ends = closes.map(({ connection, leftAt }) => this.endOf(connection, leftAt));
    const closed = await this.connections.close(ends, tx);
    const closedIds = new Set(closed.map((row) => row.id));
    for (const row of closed) {
      const { room } = closes.find((c) => c.connection.id === row.id)!;
      const end = ends.find((e) => e.id === row.id)!;
      await this.events.emit(tx, {
        organizationId: room.organization_id,
        type: 'participant.left',
        roomId: room.id,
        data: participantEventData(room, row, { minutes: end.minutes, cents: end.cents }),
      });
      if (row.kind !== 'translator') continue;
      const data = {
        room_id: room.id,
        room_name: room.name,
        participant_identity: row.identity,
        joined_at: row.joinedAt,
        left_at: row.leftAt,
      };
      await this.events.emit(tx, { organizationId: room.organization_id, type: 'translator.left', roomId: room.id, data });
    }
    for (const [i, { room, connection, leftAt }] of closes.entries()) {
      if (closedIds.has(connection.id))
        await this.account(tx, room, connection, { minutes: ends[i].minutes, cents: ends[i].cents, at: leftAt }, 'charge');
    }
  }

  /** Ends the room's connections at `at`: the open ones close there, those that ended later move there. */
  async endAllInRoom(tx: Tx, room: MeteredRoom, at: Date): Promise<void> {
    const open = await this.connections.openInRoom(room.organization_id, room.id, tx);
    await this.closeOpenMany(
      tx,
      open.map((connection) => ({ room, connection, leftAt: at })),
    );
    const later = await this.connections.closedAfter(room.organization_id, room.id, at, tx);
    await this.moveEndsEarlier(
      tx,
      later.map((connection) => ({ room, connection, leftAt: at })),
    );
  }

  /**
   * Ends reported for connections already closed: each one earlier than the recorded end (and not
   * before the join) moves the end there, with its minutes and charge; the difference is a new
   * ledger row, and the room's totals and usage move by it. Later ends change nothing.
   */
  async moveEndsEarlier(tx: Tx, moves: { room: MeteredRoom; connection: OpenConnection; leftAt: Date }[]): Promise<void> {
    if (moves.length === 0) return;
    const corrected = await this.connections.moveEndsEarlier(
      moves.map(({ connection, leftAt }) => this.endOf(connection, leftAt)),
      tx,
    );
    const roomOf = new Map(moves.map(({ room, connection }) => [connection.id, room]));
    for (const connection of corrected) await this.accountCorrection(tx, roomOf.get(connection.id)!, connection);
  }

  private endOf(connection: OpenConnection, leftAt: Date) {
    const end = new Date(Math.max(leftAt.getTime(), connection.joinedAt.getTime()));
    const { minutes, cents } = connectionCharge(
      connection.joinedAt.getTime(),
      end.getTime(),
      connection.centsPerMinute,
      this.config.maxConnectionMinutes,
    );
    return { organizationId: connection.organizationId, id: connection.id, leftAt: end, minutes, cents };
  }

  private async accountCorrection(tx: Tx, room: MeteredRoom, connection: CorrectedConnection): Promise<void> {
    const minutes = connection.minutes - connection.previousMinutes;
    const cents = connection.cents - connection.previousCents;
    if (minutes === 0 && cents === 0) return;
    await this.account(tx, room, connection, { minutes, cents, at: connection.leftAt }, 'correction');
  }

  /**
   * The room's totals, the usage rollup and the ledger follow every ended connection (its charge)
   * and every later move of its end (a correction of that charge).
   */
  private async account(
    tx: Tx,
    room: MeteredRoom,
    connection: { id: number; organizationId: string; roomId: string },
    change: { minutes: number; cents: number; at: Date },
    line: 'charge' | 'correction',
  ): Promise<void> {
    await this.addToRoom(tx, room, change.minutes, change.cents);
    const entry = {
      organizationId: connection.organizationId,
      roomId: connection.roomId,
      connectionId: connection.id,
      cents: change.cents,
      occurredAt: change.at,
    };
    await (line === 'charge' ? this.ledger.charge(tx, entry) : this.ledger.correctCharge(tx, entry));
  }

  /**
   * The room's totals and its usage slot move by what its connections' charges moved by. Once the
   * room's `room.ended` was sent, its customers hear of the change (once per transaction).
   */
  private async addToRoom(tx: Tx, room: MeteredRoom, minutes: number, cents: number): Promise<void> {
    if (room.settled) await this.events.emitUsageCorrected(tx, room);
    // Rows of the group are the room's id then its organization's, so they sort (and lock) by room id.
    await this.hot.addToGroup(tx, ROOM_TOTALS_KEY, `${room.id} ${room.organization_id}`, [minutes, cents], (rooms) =>
      this.rooms.addToTotals(
        rooms.map(({ row, delta }) => {
          const [roomId, organizationId] = row.split(' ');
          return { organizationId, roomId, minutes: delta[0], cents: delta[1] };
        }),
        tx,
      ),
    );
    await this.usage.addToRoom(tx, { organizationId: room.organization_id, startedAt: room.started_at }, { minutes, participants: 0 });
  }
}

/** A locked room, as the meter needs it (its totals and whether it settled as they were when it was locked). */
export type MeteredRoom = Pick<
  RoomRow,
  'id' | 'name' | 'organization_id' | 'started_at' | 'settled' | 'total_connection_minutes' | 'total_charged_cents'
>;
