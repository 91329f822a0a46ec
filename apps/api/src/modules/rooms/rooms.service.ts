import { nextRoomStatus } from '@app/domain';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Actor } from '../../common/auth/actor';
import { Coalescer } from '../../common/batching/coalescer';
import { ApiError } from '../../common/errors/api-error';
import { toPage, type Page } from '../../common/pagination/page';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import { CreditGateService } from '../billing/credit-gate.service';
import { LiveKitGateway } from '../livekit/livekit.gateway';
import { RoomLifecycleService } from './room-lifecycle.service';
import type { CreateRoomDto, CreatedRoomView, RoomDetailView, RoomListQueryDto, RoomView } from './room.dto';
import { RoomsRepository, type NewRoom } from './rooms.repository';
import { DatabaseClient } from '../../database/database.client';
import { AuditLogService, type AuditEntry } from '../audit/audit-log.service';

function nameTaken(name: string): ApiError {
  return ApiError.conflict(`A live room named "${name}" already exists; choose another name or end that room first.`);
}

function generatedRoomName(): string {
  return `room-${randomBytes(6).toString('hex')}`;
}

const roomCreated = (room: NewRoom): AuditEntry => ({
  action: 'room.created',
  target: { type: 'room', id: room.id },
  details: { room: room.name, streaming_mode: room.streamingMode },
});

/** A room LiveKit has, to be recorded with its `room.created` event; `inserted` says whether its row was. */
interface RoomToRecord {
  room: NewRoom;
  actor: Actor;
  inserted: boolean;
}

@Injectable()
export class RoomsService {
  private readonly logger = new Logger(RoomsService.name);
  /**
   * Rooms created at the same time are recorded in one transaction: one insert of their rows, one of
   * their events (an audit event needs its room's transaction, and BEGIN and COMMIT each cost a round
   * trip; docs/performance.md, "What the machinery saves").
   */
  private readonly recording = new Coalescer<RoomToRecord>((rooms) => this.recordAll(rooms), { maxBatch: 100, parallel: 1 });

  constructor(
    private readonly rooms: RoomsRepository,
    private readonly database: DatabaseClient,
    private readonly livekit: LiveKitGateway,
    private readonly lifecycle: RoomLifecycleService,
    private readonly credit: CreditGateService,
    private readonly audit: AuditLogService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * LiveKit is called while no database connection is held: the name is checked, the LiveKit room is
   * created under its final name (unique forever), then the row is inserted with its audit event in one
   * transaction (shared with the rooms created at the same time). If the insert fails (the name was
   * taken meanwhile: 409, or the database failed: 503) the LiveKit room is deleted again; if LiveKit
   * fails, nothing was written.
   */
  async create(actor: Actor, dto: CreateRoomDto): Promise<CreatedRoomView> {
    const name = dto.room_name ?? generatedRoomName();
    // Both read at once; no credit is 402 before a taken name is 409.
    const [, taken] = await Promise.all([
      this.credit.assertCanStartRoom(actor.organizationId),
      this.rooms.liveNameTaken(actor.organizationId, name),
    ]);
    if (taken) throw nameTaken(name);
    const id = randomUUID();
    const livekitName = `${actor.organizationId}.${id}`;
    const { sid } = await this.livekit.createRoom(livekitName);
    const record: RoomToRecord = {
      room: {
        id,
        organizationId: actor.organizationId,
        name,
        livekitName,
        sid,
        streamingMode: dto.streaming_mode ?? null,
        createdByUserId: actor.userId,
      },
      actor,
      inserted: false,
    };
    try {
      await this.recording.submit(record);
    } catch (error) {
      await this.deleteUnrecorded(livekitName);
      throw error;
    }
    if (!record.inserted) {
      await this.deleteUnrecorded(livekitName);
      throw nameTaken(name);
    }
    return { id, room: name, url: this.config.livekit.url, streaming_mode: dto.streaming_mode ?? null };
  }

  /** The rooms' rows, and the `room.created` event of each one inserted, in one transaction. */
  private async recordAll(records: RoomToRecord[]): Promise<void> {
    const inserted = await this.database.transaction(async (tx) => {
      const ids = await this.rooms.insert(
        records.map((record) => record.room),
        tx,
      );
      const events = records.filter(({ room }) => ids.has(room.id)).map(({ room, actor }) => ({ by: actor, entry: roomCreated(room) }));
      await this.audit.recordAll(tx, events);
      return ids;
    });
    for (const record of records) record.inserted = inserted.has(record.room.id);
  }

  private async deleteUnrecorded(livekitName: string): Promise<void> {
    await this.livekit.deleteRoom(livekitName).catch((cleanup: Error) => {
      this.logger.error(`LiveKit room ${livekitName} has no row and could not be deleted: ${cleanup.message}`);
    });
  }

  async list(actor: Actor, query: RoomListQueryDto): Promise<Page<RoomView>> {
    return toPage(await this.rooms.page(actor.organizationId, query.limit + 1, query.offset, query.status ?? null), query);
  }

  async detail(actor: Actor, roomId: string): Promise<RoomDetailView> {
    const room = await this.rooms.view(actor.organizationId, roomId);
    if (!room) throw ApiError.notFound('Room not found.');
    const participants = await this.rooms.participants(actor.organizationId, roomId);
    return { ...room, participants };
  }

  /** Ends the call: LiveKit first (503 changes nothing), then the room and its open connections. */
  async end(actor: Actor, roomId: string): Promise<void> {
    const room = await this.rooms.endState(actor.organizationId, roomId);
    if (!room) throw ApiError.notFound('Room not found.');
    if (nextRoomStatus(room.status, 'room_ended') === room.status) return;
    await this.livekit.deleteRoom(room.livekit_name);
    await this.lifecycle.end(actor.organizationId, roomId, new Date(), (tx, ended) =>
      this.audit.record(tx, actor, {
        action: 'room.ended_by_api',
        target: { type: 'room', id: roomId },
        details: { room: ended.name, ended_at: ended.ended_at },
      }),
    );
  }
}
