import type { RoomStatus, StreamingMode } from '@app/domain';
import { Injectable } from '@nestjs/common';
import type { BatchedLoader } from '../../common/batching/batched-loader';
import { batchedRows } from '../../common/batching/batched-rows';
import { DatabaseClient } from '../../database/database.client';
import type { Sql, Tx } from '../../database/sql';
import { type Narrowed, prepared, sql } from '../../database/typed-sql';
import type {
  IFindForUpdateQuery,
  IFindQuery,
  IFindResult,
  IInsertQuery,
  IPreviewsQuery,
  IPreviewsResult,
  IRevokeAllQuery,
  IRoomStatusQuery,
  IRoomStatusResult,
  ISpendUseQuery,
} from './invites.repository.types';

/** A link with what its use depends on: its bounds and its room's status and mode. */
export type InviteRow = Narrowed<IFindResult, { room_status: RoomStatus; streaming_mode: StreamingMode | null }>;

type RoomStatusRow = Narrowed<IRoomStatusResult, { status: RoomStatus }>;

/** A link as its preview shows it, with the languages its room holds right now. */
export type InvitePreviewRow = Narrowed<IPreviewsResult, { room_status: RoomStatus; streaming_mode: StreamingMode | null }>;

export interface NewInvite {
  organizationId: string;
  roomId: string;
  codeHash: Buffer;
  expiresAt: Date;
  maxUses: number;
}

// Links are found by the stored hash of their code: the code is the credential (no organization is
// known before it). Everything else is scoped to the organization in the statement.
/** `held`: sorted by code (held_languages). */
const PREVIEWS = sql<IPreviewsQuery>`SELECT i.code_hash, i.expires_at, i.max_uses, i.uses, r.status AS room_status, r.streaming_mode,
         held_languages(r.id, NULL) AS "held!"
    FROM invites i JOIN rooms r ON r.id = i.room_id AND r.organization_id = i.organization_id
   WHERE i.code_hash = ANY($codeHashes!::bytea[])`;

const FIND = sql<IFindQuery>`SELECT i.id, i.organization_id, i.room_id, i.expires_at, i.max_uses, i.uses, r.status AS room_status, r.streaming_mode
  FROM invites i JOIN rooms r ON r.id = i.room_id AND r.organization_id = i.organization_id WHERE i.code_hash = $codeHash!`;

/** FIND, locking the link's row until the transaction ends. */
const FIND_FOR_UPDATE = sql<IFindForUpdateQuery>`SELECT i.id, i.organization_id, i.room_id, i.expires_at, i.max_uses, i.uses, r.status AS room_status, r.streaming_mode
  FROM invites i JOIN rooms r ON r.id = i.room_id AND r.organization_id = i.organization_id WHERE i.code_hash = $codeHash! FOR UPDATE OF i`;

const ROOM_STATUS = sql<IRoomStatusQuery>`SELECT status FROM rooms WHERE id = $roomId! AND organization_id = $organizationId!`;

const INSERT = sql<IInsertQuery>`INSERT INTO invites (room_id, organization_id, code_hash, expires_at, max_uses)
  SELECT r.id, r.organization_id, $codeHash!, $expiresAt!, $maxUses! FROM rooms r WHERE r.id = $roomId! AND r.organization_id = $organizationId!
  RETURNING expires_at`;

const REVOKE_ALL = sql<IRevokeAllQuery>`DELETE FROM invites WHERE room_id = $roomId! AND organization_id = $organizationId!`;

const SPEND_USE = sql<ISpendUseQuery>`UPDATE invites SET uses = uses + 1 WHERE id = $inviteId! AND organization_id = $organizationId!`;

/** Invite links of rooms (table `invites`), with their room's state. */
@Injectable()
export class InvitesRepository {
  /**
   * Previews arriving together are read with one statement (by the codes' stored hashes); each read
   * still starts after its request arrived.
   */
  private readonly previews: BatchedLoader<string, InvitePreviewRow>;

  constructor(private readonly database: DatabaseClient) {
    this.previews = batchedRows<string, IPreviewsQuery, InvitePreviewRow>(
      database,
      prepared('invite_previews', PREVIEWS),
      (row) => row.code_hash.toString('hex'),
      (hexHashes) => hexHashes.map((hex) => Buffer.from(hex, 'hex')),
    );
  }

  /** The link with this stored code hash, its room and the languages the room holds now; null for none. */
  async preview(codeHash: Buffer): Promise<InvitePreviewRow | null> {
    return (await this.previews.load(codeHash.toString('hex'))) ?? null;
  }

  /**
   * The link with this stored code hash and its room; null for none. With `lock`, the link's row is
   * locked until the transaction ends (its uses are about to change).
   */
  async find(codeHash: Buffer, lock: boolean, sql: Sql = this.database): Promise<InviteRow | null> {
    const [invite] = await sql.rows<IFindQuery, InviteRow>(lock ? FIND_FOR_UPDATE : FIND, { codeHash });
    return invite ?? null;
  }

  /** The status of the organization's room; null for a room it does not have. */
  async roomStatus(organizationId: string, roomId: string, sql: Sql = this.database): Promise<RoomStatus | null> {
    const [room] = await sql.rows<IRoomStatusQuery, RoomStatusRow>(ROOM_STATUS, { roomId, organizationId });
    return room?.status ?? null;
  }

  /** Stores a link of the organization's room; its stored expiry (null: no such room of the organization). */
  async insert(invite: NewInvite, tx: Tx): Promise<Date | null> {
    const [row] = await tx.rows(INSERT, invite);
    return row?.expires_at ?? null;
  }

  /** Removes every link of the organization's room; how many there were (another organization's room has none). */
  async revokeAll(organizationId: string, roomId: string, tx: Tx): Promise<number> {
    return tx.count(REVOKE_ALL, { roomId, organizationId });
  }

  /** Spends one use of the link (its row locked by `find(…, true)` in the same transaction). */
  async spendUse(invite: Pick<InviteRow, 'id' | 'organization_id'>, tx: Tx): Promise<void> {
    await tx.rows(SPEND_USE, { inviteId: invite.id, organizationId: invite.organization_id });
  }
}
