import type { ParticipantKind, StreamingMode } from '@app/domain';
import { Injectable } from '@nestjs/common';
import { Coalescer } from '../../common/batching/coalescer';
import { DatabaseClient } from '../../database/database.client';
import type { Sql, Tx } from '../../database/sql';
import { type Narrowed, prepared, sql } from '../../database/typed-sql';
import type {
  IAdmitSharedQuery,
  IAdmitSharedResult,
  IHeldLanguagesQuery,
  IIssuedLanguagesQuery,
  IReleaseReservationsQuery,
  IReleaseReservationsResult,
  IReserveTokenQuery,
} from './room-tokens.repository.types';

/** A join token's reservation of its languages (kind `member` or `guest`). */
export interface TokenReservation {
  identity: string;
  kind: Exclude<ParticipantKind, 'translator'>;
  displayName: string | null;
  languages: readonly string[];
  reserveSeconds: number;
}

/** One token of a batch for admit_tokens_shared; `ord` ties the answer to it. */
export interface SharedAdmissionRequest extends Omit<TokenReservation, 'reserveSeconds'> {
  organizationId: string;
  roomName: string;
}

/**
 * The answer of admit_tokens_shared for one request whose room is live. `admitted` false: the token
 * would set the mode or add a language (or does not fit): decide it exclusively.
 */
export type SharedAdmissionRow = Narrowed<IAdmitSharedResult, { streaming_mode: StreamingMode | null }>;

/** A participant's join token, as the connection takes it over. */
export interface ConnectedToken {
  roomId: string;
  identity: string;
  kind: ParticipantKind;
  languages: string[];
}

/** One shared admission waiting in a batch; the batch sets `answer` (null: the room is not live). */
interface PendingSharedAdmission {
  request: SharedAdmissionRequest;
  reserveSeconds: number;
  answer?: SharedAdmissionRow | null;
}

/** A released token as it was issued (kind `member` or `guest`). */
type ReleasedTokenRow = Narrowed<IReleaseReservationsResult, { kind: Exclude<ParticipantKind, 'translator'> }>;

// room_tokens has no organization of its own: every statement checks its room's.
const HELD_LANGUAGES = sql<IHeldLanguagesQuery>`SELECT held_languages(r.id, $exceptIdentity::text) AS "languages!" FROM rooms r
  WHERE r.id = $roomId! AND r.organization_id = $organizationId!`;

const ISSUED_LANGUAGES = sql<IIssuedLanguagesQuery>`SELECT ARRAY(SELECT DISTINCT l FROM room_tokens t JOIN rooms r ON r.id = t.room_id, unnest(t.languages) AS l
                     WHERE t.room_id = $roomId! AND r.organization_id = $organizationId! ORDER BY l) AS "languages!"`;

const RESERVE_TOKEN = sql<IReserveTokenQuery>`INSERT INTO room_tokens (room_id, identity, kind, display_name, languages, reserved_until)
  SELECT r.id, $identity!, $kind!, $displayName, $languages!, clock_timestamp() + make_interval(secs => $reserveSeconds!)
    FROM rooms r WHERE r.id = $roomId! AND r.organization_id = $organizationId!
  ON CONFLICT (room_id, identity) DO UPDATE SET kind = EXCLUDED.kind, display_name = EXCLUDED.display_name,
    languages = EXCLUDED.languages, issued_at = clock_timestamp(), reserved_until = EXCLUDED.reserved_until`;

// The function's columns: only streaming_mode may be null (a request without an answer has no row).
const ADMIT_SHARED = sql<IAdmitSharedQuery>`SELECT ord AS "ord!", room_id AS "room_id!", room_name AS "room_name!", livekit_name AS "livekit_name!",
       streaming_mode, admitted AS "admitted!"
  FROM admit_tokens_shared($requests!, $reserveSeconds!)`;

const ADMIT_TOKENS_SHARED = prepared('admit_tokens_shared', ADMIT_SHARED);

// room_tokens has no organization of its own: its room's is checked.
const RELEASE_RESERVATIONS = sql<IReleaseReservationsQuery>`UPDATE room_tokens t SET reserved_until = NULL
  FROM unnest($organizationIds!::uuid[], $roomIds!::uuid[], $identities!::text[]) AS j(organization_id, room_id, identity)
  JOIN rooms r ON r.id = j.room_id AND r.organization_id = j.organization_id
  WHERE t.room_id = j.room_id AND t.identity = j.identity RETURNING t.room_id, t.identity, t.kind, t.languages`;

/** Run by every batch of joins. */
const RELEASE_RESERVATIONS_PREPARED = prepared('room_tokens_release_reservations', RELEASE_RESERVATIONS);

/**
 * `room_tokens`: the join tokens issued for a room, each reserving its languages until its
 * participant connects (then the connection holds them), and the languages a room holds counting
 * those reservations. Admission decides with the room's lock (RoomsRepository.lockAdmissions) or,
 * for tokens that change nothing, in one statement (admit_tokens_shared).
 */
@Injectable()
export class RoomTokensRepository {
  /**
   * Shared admissions requested at the same time go to Postgres together: one statement and one
   * commit for the batch (the Coalescer), while each caller asks for its own token.
   */
  private readonly sharedAdmissions: Coalescer<PendingSharedAdmission>;

  constructor(private readonly database: DatabaseClient) {
    this.sharedAdmissions = new Coalescer<PendingSharedAdmission>(
      async (pending) => {
        // One statement per reservation length (there is one today).
        for (const seconds of new Set(pending.map((p) => p.reserveSeconds))) {
          const group = pending.filter((p) => p.reserveSeconds === seconds);
          const answers = await this.database.oneStatement((tx) =>
            this.admitShared(
              group.map((p) => p.request),
              seconds,
              tx,
            ),
          );
          group.forEach((p, ord) => (p.answer = answers.get(ord) ?? null));
        }
      },
      { maxBatch: 100, parallel: 1 },
    );
  }

  /**
   * Languages the room holds now, sorted: connected people's, plus fresh reservations of tokens not
   * yet connected other than `exceptIdentity`'s (database/functions/held_languages.sql).
   */
  async heldLanguages(organizationId: string, roomId: string, exceptIdentity: string | null, sql: Sql = this.database): Promise<string[]> {
    const [row] = await sql.rows(HELD_LANGUAGES, { roomId, organizationId, exceptIdentity });
    return row?.languages ?? [];
  }

  /** Every language a token of the room was ever issued for (members' and guests'), sorted. */
  async issuedLanguages(organizationId: string, roomId: string, sql: Sql = this.database): Promise<string[]> {
    const [row] = await sql.rows(ISSUED_LANGUAGES, { roomId, organizationId });
    return row.languages;
  }

  /** Issues (or re-issues, for the same identity) a token of the room, reserving its languages for a while. */
  async reserveToken(organizationId: string, roomId: string, token: TokenReservation, tx: Tx): Promise<void> {
    await tx.rows(RESERVE_TOKEN, {
      roomId,
      organizationId,
      identity: token.identity,
      kind: token.kind,
      displayName: token.displayName,
      languages: [...token.languages],
      reserveSeconds: token.reserveSeconds,
    });
  }

  /**
   * Admits the token if it changes nothing (admit_tokens_shared, under its room's shared admission
   * lock), batched with the tokens requested at the same time; null when the organization has no live
   * room of that name. A token that is not admitted must be decided exclusively (`lockAdmissions`).
   */
  async admitTokenShared(request: SharedAdmissionRequest, reserveSeconds: number): Promise<SharedAdmissionRow | null> {
    const pending: PendingSharedAdmission = { request, reserveSeconds };
    await this.sharedAdmissions.submit(pending);
    return pending.answer ?? null;
  }

  /**
   * Admits in one statement and one transaction each token that changes nothing (admit_tokens_shared:
   * under its room's shared admission lock). One answer per request whose room is live, by index in
   * `requests`; a request without an answer has no live room of that name.
   */
  async admitShared(requests: readonly SharedAdmissionRequest[], reserveSeconds: number, tx: Tx): Promise<Map<number, SharedAdmissionRow>> {
    const payload = requests.map((request, ord) => ({
      ord,
      organization_id: request.organizationId,
      room_name: request.roomName,
      identity: request.identity,
      kind: request.kind,
      display_name: request.displayName,
      languages: request.languages,
    }));
    const rows = await tx.rows<IAdmitSharedQuery, SharedAdmissionRow>(ADMIT_TOKENS_SHARED, {
      requests: JSON.stringify(payload),
      reserveSeconds,
    });
    return new Map(rows.map((row) => [row.ord, row]));
  }

  /**
   * The participants connected: their tokens' short reservation of languages is over (the connection
   * now holds them). Returns the tokens found, with the kind and languages they were issued with.
   */
  async releaseReservations(
    participants: { organizationId: string; roomId: string; identity: string }[],
    tx: Tx,
  ): Promise<ConnectedToken[]> {
    if (participants.length === 0) return [];
    const rows = await tx.rows<IReleaseReservationsQuery, ReleasedTokenRow>(RELEASE_RESERVATIONS_PREPARED, {
      organizationIds: participants.map((p) => p.organizationId),
      roomIds: participants.map((p) => p.roomId),
      identities: participants.map((p) => p.identity),
    });
    return rows.map((row) => ({ roomId: row.room_id, identity: row.identity, kind: row.kind, languages: row.languages }));
  }
}
