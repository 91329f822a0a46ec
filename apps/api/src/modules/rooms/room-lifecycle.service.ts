import { nextRoomStatus } from '@app/domain';
import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { OutboxPublisher, type OutboxJob } from '../../queue/outbox.publisher';
import { ConnectionMeterService } from '../metering/connection-meter.service';
import type { RoomRow } from './room-rows';
import { RoomsRepository } from './rooms.repository';
import { TranslatorPresenceService } from './translator-presence.service';
import { DatabaseClient } from '../../database/database.client';
import type { Tx } from '../../database/sql';

/**
 * Moves a room through created → active → ended, under the room's row lock. The jobs a change
 * decides are returned, never written here: whoever opened the transaction writes them to the outbox
 * once, with everything else it decided (`end` below, or the LiveKit events worker for its batch).
 */
@Injectable()
export class RoomLifecycleService {
  constructor(
    private readonly database: DatabaseClient,
    private readonly rooms: RoomsRepository,
    private readonly meter: ConnectionMeterService,
    private readonly translator: TranslatorPresenceService,
    private readonly outbox: OutboxPublisher,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Locks the rooms with these LiveKit names, in id order; rooms not found are left out. */
  async lockAll(tx: Tx, livekitNames: string[]): Promise<RoomRow[]> {
    return this.rooms.lockByLiveKitNames(livekitNames, tx);
  }

  /**
   * Ends the organization's room at `at`, closing its open connections there; ending an ended room changes
   * nothing. `ended` runs in the same transaction when this call ended it (the audit event of who did).
   */
  async end(organizationId: string, roomId: string, at: Date, ended?: (tx: Tx, room: RoomRow) => Promise<void>): Promise<void> {
    const jobs = await this.database.transaction(async (tx) => {
      const room = await this.rooms.lockForLifecycle(organizationId, roomId, tx);
      if (!room) return [];
      const before = room.status;
      const decided = await this.endLocked(tx, room, at);
      await this.outbox.write(tx, decided);
      if (room.status !== before) await ended?.(tx, room);
      return decided;
    });
    await this.outbox.flush(jobs);
  }

  /**
   * Ends a locked room; returns the jobs it decided, for the caller to write with its transaction.
   * Its `room.ended` waits until the room settles (RoomSettlementService), so that it carries the totals
   * after the late events of its connections.
   */
  async endLocked(tx: Tx, room: RoomRow, at: Date): Promise<OutboxJob[]> {
    const status = nextRoomStatus(room.status, 'room_ended');
    if (status === room.status) return [];
    // Never before the room started or was created; its connections end there at the latest.
    const endedAt = await this.rooms.end(room.organization_id, room.id, at, this.config.roomSettleMs, tx);
    if (!endedAt) return [];
    room.status = status;
    room.ended_at = endedAt;
    await this.meter.endAllInRoom(tx, room, endedAt);
    return this.translator.reconcile(tx, room);
  }
}
