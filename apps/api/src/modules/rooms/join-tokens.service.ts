import { admitLanguages, decideModeForToken, type ParticipantKind, type StreamingMode } from '@app/domain';
import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { DataSource, type EntityManager } from 'typeorm';
import type { Actor } from '../../common/auth/actor';
import { ApiError } from '../../common/errors/api-error';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import { LiveKitGateway } from '../livekit/livekit.gateway';
import type { JoinTokenView } from './join-token.dto';
import { ROOM_ROW_COLUMNS, type RoomRow } from './room-queries';

export interface JoinRequest {
  languages: string[];
  identity?: string;
  name?: string;
  kind: Exclude<ParticipantKind, 'translator'>;
}

export interface Admission {
  room: RoomRow;
  identity: string;
  mode: StreamingMode;
}

/** Languages of an issued token count as held for this long, until its participant connects. */
export const LANGUAGE_RESERVATION_SECONDS = 120;
const TOKEN_TTL_SECONDS = 6 * 3600;

@Injectable()
export class JoinTokensService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly livekit: LiveKitGateway,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async issueForMember(actor: Actor, roomName: string, request: Omit<JoinRequest, 'kind'>): Promise<JoinTokenView> {
    const member: JoinRequest = { ...request, kind: 'member' };
    // Most tokens change neither the mode nor the languages: those share the room's admission lock
    // and run side by side. A token that might change either retries under the exclusive lock.
    const admitted = (await this.admitMember(actor, roomName, member, false)) ?? (await this.admitMember(actor, roomName, member, true));
    if (!admitted) throw new Error('an exclusive admission is never deferred');
    return this.sign(admitted, member);
  }

  private admitMember(actor: Actor, roomName: string, request: JoinRequest, exclusive: boolean): Promise<Admission | null> {
    return this.dataSource.transaction(async (tx) => {
      const [found] = (await tx.query(`SELECT id FROM rooms WHERE organization_id = $1 AND name = $2 AND status <> 'ended'`, [
        actor.organizationId,
        roomName,
      ])) as { id: string }[];
      if (!found) throw ApiError.notFound(`No live room named "${roomName}".`);
      const room = await this.lockAdmissions(tx, found.id, exclusive);
      if (!room) throw ApiError.notFound(`No live room named "${roomName}".`);
      return this.admit(tx, room, request, !exclusive);
    });
  }

  /**
   * Admissions to a room (tokens, invite joins) take this transaction-scoped advisory lock: shared
   * for those that change nothing, exclusive for those that may set the mode or add a language.
   * The room is read after the lock is held, so the decision sees every earlier admission.
   */
  async lockAdmissions(tx: EntityManager, roomId: string, exclusive: boolean): Promise<RoomRow | null> {
    await tx.query(`SELECT ${exclusive ? 'pg_advisory_xact_lock' : 'pg_advisory_xact_lock_shared'}(hashtextextended($1, 0))`, [roomId]);
    const [room] = (await tx.query(`SELECT ${ROOM_ROW_COLUMNS} FROM rooms WHERE id = $1 AND status <> 'ended'`, [roomId])) as RoomRow[];
    return room ?? null;
  }

  /**
   * The mode and two-language rules, decided under the room's admission lock so concurrent tokens
   * can never disagree on the mode or bring a third language. With only the shared lock, a request
   * that would set the mode or add a language is not decided here (null): the caller retries exclusively.
   */
  async admit(tx: EntityManager, room: RoomRow, request: JoinRequest, sharedLock = false): Promise<Admission | null> {
    const decision = decideModeForToken(room.streaming_mode, request.languages.length);
    const identity = request.identity ?? `${request.kind}-${randomBytes(6).toString('hex')}`;
    if (sharedLock) {
      // Admitted under the shared lock only when every language is already held: nothing changes.
      if (decision.changed || (await this.unheld(tx, room.id, identity, request.languages)).length > 0) return null;
    } else {
      admitLanguages(await this.heldLanguages(tx, room.id, identity), request.languages);
    }
    if (decision.changed) {
      await tx.query(`UPDATE rooms SET streaming_mode = $2 WHERE id = $1`, [room.id, decision.mode]);
      room.streaming_mode = decision.mode;
    }
    await tx.query(
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

  /** Which of `languages` the room does not hold now; each is one indexed existence check, however busy the room. */
  private async unheld(tx: EntityManager, roomId: string, exceptIdentity: string, languages: string[]): Promise<string[]> {
    const rows = (await tx.query(
      `SELECT l FROM unnest($3::text[]) AS l
        WHERE NOT EXISTS (SELECT 1 FROM connections c WHERE c.room_id = $1 AND c.left_at IS NULL AND c.languages @> ARRAY[l])
          AND NOT EXISTS (SELECT 1 FROM room_tokens t
                           WHERE t.room_id = $1 AND t.reserved_until > clock_timestamp() AND t.identity <> $2 AND t.languages @> ARRAY[l])`,
      [roomId, exceptIdentity, languages],
    )) as { l: string }[];
    return rows.map((row) => row.l);
  }

  /** Languages held now: connected people's, plus fresh reservations of tokens not yet connected (other identities). */
  async heldLanguages(tx: EntityManager, roomId: string, exceptIdentity: string | null = null): Promise<string[]> {
    const [{ languages }] = (await tx.query(
      `SELECT coalesce(array_agg(DISTINCT l ORDER BY l), '{}') AS languages FROM (
         SELECT unnest(c.languages) AS l FROM connections c
          WHERE c.room_id = $1 AND c.left_at IS NULL AND c.languages IS NOT NULL
         UNION ALL
         SELECT unnest(t.languages) FROM room_tokens t
          WHERE t.room_id = $1 AND t.reserved_until > clock_timestamp() AND t.identity IS DISTINCT FROM $2
       ) held`,
      [roomId, exceptIdentity],
    )) as { languages: string[] }[];
    return languages;
  }
}
