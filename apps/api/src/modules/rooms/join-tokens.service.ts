import { admitToken, type ParticipantKind, type StreamingMode } from '@app/domain';
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Actor } from '../../common/auth/actor';
import { ApiError } from '../../common/errors/api-error';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import { LiveKitGateway } from '../livekit/livekit.gateway';
import type { JoinTokenView } from './join-token.dto';
import type { RoomRow } from './room-rows';
import { RoomTokensRepository } from './room-tokens.repository';
import { RoomsRepository } from './rooms.repository';
import { DatabaseClient } from '../../database/database.client';
import type { Tx } from '../../database/sql';

export interface JoinRequest {
  languages: string[];
  identity?: string;
  name?: string;
  kind: Exclude<ParticipantKind, 'translator'>;
}

export interface Admission {
  room: Pick<RoomRow, 'id' | 'name' | 'livekit_name'>;
  identity: string;
  mode: StreamingMode;
}

/** 48 random bits as 12 hex digits: a v4 UUID's last group, from Node's pooled entropy (randomBytes is a call each time). */
function generatedIdentity(kind: JoinRequest['kind']): string {
  return `${kind}-${randomUUID().slice(-12)}`;
}

/** Languages of an issued token count as held for this long, until its participant connects. */
export const LANGUAGE_RESERVATION_SECONDS = 120;
const TOKEN_TTL_SECONDS = 6 * 3600;

@Injectable()
export class JoinTokensService {
  constructor(
    private readonly database: DatabaseClient,
    private readonly rooms: RoomsRepository,
    private readonly tokens: RoomTokensRepository,
    private readonly livekit: LiveKitGateway,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async issueForMember(actor: Actor, roomName: string, request: Omit<JoinRequest, 'kind'>): Promise<JoinTokenView> {
    const member: JoinRequest = { ...request, identity: request.identity ?? generatedIdentity('member'), kind: 'member' };
    // Most tokens change neither the mode nor the languages: one statement admits those under the
    // room's shared admission lock. A token that might change either is decided exclusively.
    const admitted = (await this.admitShared(actor, roomName, member)) ?? (await this.admitExclusive(actor, roomName, member));
    return this.sign(admitted, member);
  }

  /** The SQL function admits exactly the tokens the rule (libs/domain admitToken) admits as changing nothing. */
  private async admitShared(actor: Actor, roomName: string, request: JoinRequest): Promise<Admission | null> {
    const identity = request.identity as string;
    const row = await this.tokens.admitTokenShared(
      {
        organizationId: actor.organizationId,
        roomName,
        identity,
        kind: request.kind,
        displayName: request.name ?? null,
        languages: request.languages,
      },
      LANGUAGE_RESERVATION_SECONDS,
    );
    if (!row) throw ApiError.notFound(`No live room named "${roomName}".`);
    if (!row.admitted || row.streaming_mode === null) return null;
    return { room: { id: row.room_id, name: row.room_name, livekit_name: row.livekit_name }, identity, mode: row.streaming_mode };
  }

  private admitExclusive(actor: Actor, roomName: string, request: JoinRequest): Promise<Admission> {
    return this.database.transaction(async (tx) => {
      const roomId = await this.rooms.liveRoomId(actor.organizationId, roomName, tx);
      const room = roomId ? await this.rooms.lockAdmissions(actor.organizationId, roomId, tx) : null;
      if (!room) throw ApiError.notFound(`No live room named "${roomName}".`);
      return this.admit(tx, room, request);
    });
  }

  /**
   * The admission rule (libs/domain admitToken: the mode, then the two languages), decided under the
   * room's exclusive admission lock (RoomsRepository.lockAdmissions, taken by the caller's
   * transaction) so concurrent tokens can never disagree on the mode or bring a third language.
   */
  async admit(tx: Tx, room: RoomRow, request: JoinRequest): Promise<Admission> {
    const identity = request.identity ?? generatedIdentity(request.kind);
    const held = await this.tokens.heldLanguages(room.organization_id, room.id, identity, tx);
    const admission = admitToken({ mode: room.streaming_mode, held }, request.languages);
    if (admission.setsMode) {
      await this.rooms.setMode(room.organization_id, room.id, admission.mode, tx);
      room.streaming_mode = admission.mode;
    }
    await this.tokens.reserveToken(
      room.organization_id,
      room.id,
      {
        identity,
        kind: request.kind,
        displayName: request.name ?? null,
        languages: request.languages,
        reserveSeconds: LANGUAGE_RESERVATION_SECONDS,
      },
      tx,
    );
    return { room, identity, mode: admission.mode };
  }

  /** Signs the LiveKit token once the admission is committed, outside any lock. */
  async sign({ room, identity, mode }: Admission, request: JoinRequest): Promise<JoinTokenView> {
    const { token, expiresAt } = await this.livekit.joinToken({
      livekitRoom: room.livekit_name,
      identity,
      displayName: request.name ?? null,
      ttlSeconds: TOKEN_TTL_SECONDS,
      metadata: { languages: request.languages, kind: request.kind, room_id: room.id },
    });
    return {
      token,
      url: this.config.livekit.url,
      room: room.name,
      identity,
      languages: request.languages,
      streaming_mode: mode,
      expires_at: expiresAt,
    };
  }
}
