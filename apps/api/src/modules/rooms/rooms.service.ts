import { nextRoomStatus } from '@app/domain';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Actor } from '../../common/auth/actor';
import { ApiError } from '../../common/errors/api-error';
import { toPage, type Page } from '../../common/pagination/page';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import { CreditGateService } from '../billing/credit-gate.service';
import { LiveKitGateway } from '../livekit/livekit.gateway';
import { RoomLifecycleService } from './room-lifecycle.service';
import type { CreateRoomDto, CreatedRoomView, RoomDetailView, RoomListQueryDto, RoomView } from './room.dto';
import { RoomsRepository } from './rooms.repository';
import { DatabaseClient } from '../../database/database.client';
import { AuditLogService } from '../audit/audit-log.service';

function nameTaken(name: string): ApiError {
  return ApiError.conflict(`A live room named "${name}" already exists; choose another name or end that room first.`);
}

function generatedRoomName(): string {
  return `room-${randomBytes(6).toString('hex')}`;
}

@Injectable()
export class RoomsService {
  private readonly logger = new Logger(RoomsService.name);

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
   * created under its final name (unique forever), then the row is inserted in one statement. If the
   * insert fails (the name was taken meanwhile: 409, or the database failed: 503) the LiveKit room is
   * deleted again; if LiveKit fails, nothing was written.
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
    let inserted: boolean;
    try {
      inserted = await this.database.transaction(async (tx) => {
        const room = {
          id,
          organizationId: actor.organizationId,
          name,
          livekitName,
          sid,
          streamingMode: dto.streaming_mode ?? null,
          createdByUserId: actor.userId,
        };
        if (!(await this.rooms.insert(room, tx))) return false;
        await this.audit.record(tx, actor, {
          action: 'room.created',
          target: { type: 'room', id },
          details: { room: name, streaming_mode: room.streamingMode },
        });
        return true;
      });
    } catch (error) {
      await this.deleteUnrecorded(livekitName);
      throw error;
    }
    if (!inserted) {
      await this.deleteUnrecorded(livekitName);
      throw nameTaken(name);
    }
    return { id, room: name, url: this.config.livekit.url, streaming_mode: dto.streaming_mode ?? null };
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
