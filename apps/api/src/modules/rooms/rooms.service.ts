import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Actor } from '../../common/auth/actor';
import { ApiError } from '../../common/errors/api-error';
import { toPage, type Page } from '../../common/pagination/page';
import type { PageQueryDto } from '../../common/pagination/page-query.dto';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import { CreditGate } from '../billing/credit-gate';
import { LiveKitGateway } from '../livekit/livekit.gateway';
import { RoomLifecycle } from './room-lifecycle';
import { PARTICIPANT_COLUMNS, ROOM_COLUMNS, ROOM_FROM } from './room-queries';
import type { CreateRoomDto, CreatedRoomView, ParticipantUsageView, RoomDetailView, RoomView } from './room.dto';
import { Database } from '../../database/database';

const UNIQUE_VIOLATION = '23505';

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
    private readonly database: Database,
    private readonly livekit: LiveKitGateway,
    private readonly lifecycle: RoomLifecycle,
    private readonly credit: CreditGate,
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
    const [, [taken]] = (await Promise.all([
      this.credit.assertCanStartRoom(actor.organizationId),
      this.database.rows(`SELECT 1 FROM rooms WHERE organization_id = $1 AND name = $2 AND status <> 'ended'`, [
        actor.organizationId,
        name,
      ]),
    ])) as [void, unknown[]];
    if (taken) throw nameTaken(name);
    const id = randomUUID();
    const livekitName = `${actor.organizationId}.${id}`;
    const { sid } = await this.livekit.createRoom(livekitName);
    try {
      await this.database.rows(
        `INSERT INTO rooms (id, organization_id, name, livekit_name, sid, streaming_mode, created_by_user_id) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [id, actor.organizationId, name, livekitName, sid, dto.streaming_mode ?? null, actor.userId],
      );
    } catch (error) {
      await this.livekit.deleteRoom(livekitName).catch((cleanup: Error) => {
        this.logger.error(`LiveKit room ${livekitName} has no row and could not be deleted: ${cleanup.message}`);
      });
      if ((error as { code?: string }).code === UNIQUE_VIOLATION) throw nameTaken(name);
      throw error;
    }
    return { id, room: name, url: this.config.livekit.url, streaming_mode: dto.streaming_mode ?? null };
  }

  async list(actor: Actor, query: PageQueryDto): Promise<Page<RoomView>> {
    const rows: RoomView[] = await this.database.rows(
      `SELECT ${ROOM_COLUMNS} FROM ${ROOM_FROM} WHERE r.organization_id = $1
        ORDER BY r.created_at DESC, r.id DESC LIMIT $2 OFFSET $3`,
      [actor.organizationId, query.limit + 1, query.offset],
    );
    return toPage(rows, query);
  }

  async detail(actor: Actor, roomId: string): Promise<RoomDetailView> {
    const [room] = (await this.database.rows(`SELECT ${ROOM_COLUMNS} FROM ${ROOM_FROM} WHERE r.id = $1 AND r.organization_id = $2`, [
      roomId,
      actor.organizationId,
    ])) as RoomView[];
    if (!room) throw ApiError.notFound('Room not found.');
    const participants: ParticipantUsageView[] = await this.database.rows(
      `SELECT ${PARTICIPANT_COLUMNS} FROM connections c WHERE c.room_id = $1 AND c.organization_id = $2 ORDER BY c.joined_at, c.id`,
      [roomId, actor.organizationId],
    );
    return { ...room, participants };
  }

  /** Ends the call: LiveKit first (503 changes nothing), then the room and its open connections. */
  async end(actor: Actor, roomId: string): Promise<void> {
    const [room] = (await this.database.rows(`SELECT livekit_name, status FROM rooms WHERE id = $1 AND organization_id = $2`, [
      roomId,
      actor.organizationId,
    ])) as { livekit_name: string; status: string }[];
    if (!room) throw ApiError.notFound('Room not found.');
    if (room.status === 'ended') return;
    await this.livekit.deleteRoom(room.livekit_name);
    await this.lifecycle.end(actor.organizationId, roomId, new Date());
  }
}
