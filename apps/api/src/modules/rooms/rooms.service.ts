import { Inject, Injectable } from '@nestjs/common';
import { randomBytes, randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
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

const UNIQUE_VIOLATION = '23505';

function generatedRoomName(): string {
  return `room-${randomBytes(6).toString('hex')}`;
}

@Injectable()
export class RoomsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly livekit: LiveKitGateway,
    private readonly lifecycle: RoomLifecycle,
    private readonly credit: CreditGate,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The row and the LiveKit room are created together: if LiveKit fails, the insert rolls back. */
  async create(actor: Actor, dto: CreateRoomDto): Promise<CreatedRoomView> {
    await this.credit.assertCanStartRoom(actor.organizationId);
    const name = dto.room_name ?? generatedRoomName();
    const id = randomUUID();
    const livekitName = `${actor.organizationId}.${id}`;
    return this.dataSource.transaction(async (tx) => {
      try {
        await tx.query(
          `INSERT INTO rooms (id, organization_id, name, livekit_name, streaming_mode, created_by_user_id) VALUES ($1, $2, $3, $4, $5, $6)`,
          [id, actor.organizationId, name, livekitName, dto.streaming_mode ?? null, actor.userId],
        );
      } catch (error) {
        if ((error as { code?: string }).code === UNIQUE_VIOLATION) {
          throw ApiError.conflict(`A live room named "${name}" already exists; choose another name or end that room first.`);
        }
        throw error;
      }
      const { sid } = await this.livekit.createRoom(livekitName);
      await tx.query(`UPDATE rooms SET sid = $1 WHERE id = $2`, [sid, id]);
      return { id, room: name, url: this.config.livekit.url, streaming_mode: dto.streaming_mode ?? null };
    });
  }

  async list(actor: Actor, query: PageQueryDto): Promise<Page<RoomView>> {
    const rows: RoomView[] = await this.dataSource.query(
      `SELECT ${ROOM_COLUMNS} FROM ${ROOM_FROM} WHERE r.organization_id = $1
        ORDER BY r.created_at DESC, r.id DESC LIMIT $2 OFFSET $3`,
      [actor.organizationId, query.limit + 1, query.offset],
    );
    return toPage(rows, query);
  }

  async detail(actor: Actor, roomId: string): Promise<RoomDetailView> {
    const [room] = (await this.dataSource.query(`SELECT ${ROOM_COLUMNS} FROM ${ROOM_FROM} WHERE r.id = $1 AND r.organization_id = $2`, [
      roomId,
      actor.organizationId,
    ])) as RoomView[];
    if (!room) throw ApiError.notFound('Room not found.');
    const participants: ParticipantUsageView[] = await this.dataSource.query(
      `SELECT ${PARTICIPANT_COLUMNS} FROM connections c WHERE c.room_id = $1 AND c.organization_id = $2 ORDER BY c.joined_at, c.id`,
      [roomId, actor.organizationId],
    );
    return { ...room, participants };
  }

  /** Ends the call: LiveKit first (503 changes nothing), then the room and its open connections. */
  async end(actor: Actor, roomId: string): Promise<void> {
    const [room] = (await this.dataSource.query(`SELECT livekit_name, status FROM rooms WHERE id = $1 AND organization_id = $2`, [
      roomId,
      actor.organizationId,
    ])) as { livekit_name: string; status: string }[];
    if (!room) throw ApiError.notFound('Room not found.');
    if (room.status === 'ended') return;
    await this.livekit.deleteRoom(room.livekit_name);
    await this.lifecycle.end(roomId, new Date());
  }
}
