import { admitLanguages, decideModeForToken, type ParticipantKind, type StreamingMode } from '@app/domain';
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Actor } from '../../common/auth/actor';
import { Coalescer } from '../../common/batching/coalescer';
import { ApiError } from '../../common/errors/api-error';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import { LiveKitGateway } from '../livekit/livekit.gateway';
import type { JoinTokenView } from './join-token.dto';
import { heldLanguagesSql, ROOM_ROW_COLUMNS, type RoomRow } from './room-queries';
import { Database } from '../../database/database';
import type { Sql } from '../../database/sql';

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

interface SharedAdmissionRow {
  ord: number;
  room_id: string;
  room_name: string;
  livekit_name: string;
  streaming_mode: StreamingMode;
  admitted: boolean;
}

interface SharedAdmissionRequest {
  organization_id: string;
  room_name: string;
  identity: string;
  kind: JoinRequest['kind'];
  display_name: string | null;
  languages: string[];
  /** Set by the batch: the answer, or null when the room is not live. */
  answer?: SharedAdmissionRow | null;
}

/** Languages of an issued token count as held for this long, until its participant connects. */
export const LANGUAGE_RESERVATION_SECONDS = 120;
const TOKEN_TTL_SECONDS = 6 * 3600;

@Injectable()
export class JoinTokensService {
  /**
   * Shared admissions of tokens requested at the same time go to Postgres together: one statement
   * (admit_tokens_shared) and one commit for the batch, instead of a round trip each.
   */
  private readonly sharedAdmissions = new Coalescer<SharedAdmissionRequest>((requests) => this.admitSharedBatch(requests), {
    maxBatch: 100,
    parallel: 1,
  });

  constructor(
    private readonly database: Database,
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

  private async admitShared(actor: Actor, roomName: string, request: JoinRequest): Promise<Admission | null> {
    const shared: SharedAdmissionRequest = {
      organization_id: actor.organizationId,
      room_name: roomName,
      identity: request.identity as string,
      kind: request.kind,
      display_name: request.name ?? null,
      languages: request.languages,
    };
    await this.sharedAdmissions.submit(shared);
    const row = shared.answer;
    if (!row) throw ApiError.notFound(`No live room named "${roomName}".`);
    if (!row.admitted) return null;
    return {
      room: { id: row.room_id, name: row.room_name, livekit_name: row.livekit_name },
      identity: shared.identity,
      mode: row.streaming_mode,
    };
  }

  private async admitSharedBatch(requests: SharedAdmissionRequest[]): Promise<void> {
    const rows = await this.database.rows<SharedAdmissionRow>(
      { name: 'admit_tokens_shared', text: `SELECT * FROM admit_tokens_shared($1, $2)` },
      [JSON.stringify(requests.map(({ answer: _answer, ...request }, ord) => ({ ...request, ord }))), LANGUAGE_RESERVATION_SECONDS],
    );
    const byOrd = new Map(rows.map((row) => [row.ord, row]));
    requests.forEach((request, ord) => (request.answer = byOrd.get(ord) ?? null));
  }

  private admitExclusive(actor: Actor, roomName: string, request: JoinRequest): Promise<Admission> {
    return this.database.transaction(async (tx) => {
      const [found] = (await tx.rows(`SELECT id FROM rooms WHERE organization_id = $1 AND name = $2 AND status <> 'ended'`, [
        actor.organizationId,
        roomName,
      ])) as { id: string }[];
      const room = found ? await this.lockAdmissions(tx, found.id) : null;
      if (!room) throw ApiError.notFound(`No live room named "${roomName}".`);
      return this.admit(tx, room, request);
    });
  }

  /**
   * Admissions to a room (tokens, invite joins) that may set the mode or add a language take this
   * transaction-scoped advisory lock exclusively; admit_token_shared (a SQL function) takes it shared
   * for those that change nothing. The room is read after the lock is held, so the decision sees
   * every earlier admission.
   */
  async lockAdmissions(tx: Sql, roomId: string): Promise<RoomRow | null> {
    await tx.rows(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [roomId]);
    const [room] = (await tx.rows(`SELECT ${ROOM_ROW_COLUMNS} FROM rooms WHERE id = $1 AND status <> 'ended'`, [roomId])) as RoomRow[];
    return room ?? null;
  }

  /**
   * The mode and two-language rules (libs/domain), decided under the room's exclusive admission
   * lock so concurrent tokens can never disagree on the mode or bring a third language.
   */
  async admit(tx: Sql, room: RoomRow, request: JoinRequest): Promise<Admission> {
    const decision = decideModeForToken(room.streaming_mode, request.languages.length);
    const identity = request.identity ?? generatedIdentity(request.kind);
    admitLanguages(await this.heldLanguages(tx, room.id, identity), request.languages);
    if (decision.changed) {
      await tx.rows(`UPDATE rooms SET streaming_mode = $2 WHERE id = $1`, [room.id, decision.mode]);
      room.streaming_mode = decision.mode;
    }
    await tx.rows(
      `INSERT INTO room_tokens (room_id, identity, kind, display_name, languages, reserved_until)
       VALUES ($1, $2, $3, $4, $5, clock_timestamp() + make_interval(secs => $6))
       ON CONFLICT (room_id, identity) DO UPDATE SET kind = EXCLUDED.kind, display_name = EXCLUDED.display_name,
         languages = EXCLUDED.languages, issued_at = clock_timestamp(), reserved_until = EXCLUDED.reserved_until`,
      [room.id, identity, request.kind, request.name ?? null, request.languages, LANGUAGE_RESERVATION_SECONDS],
    );
    return { room, identity, mode: decision.mode };
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

  /** Languages held now: connected people's, plus fresh reservations of tokens not yet connected (other identities). */
  async heldLanguages(tx: Sql, roomId: string, exceptIdentity: string | null = null): Promise<string[]> {
    const [{ languages }] = (await tx.rows(`SELECT ${heldLanguagesSql('$1', '$2::text')} AS languages`, [roomId, exceptIdentity])) as {
      languages: string[];
    }[];
    return languages;
  }
}
