import type { RoomStatus, StreamingMode } from '@app/domain';
import { Injectable } from '@nestjs/common';
import type { BatchedLoader } from '../../common/batching/batched-loader';
import { batchedRows } from '../../common/batching/batched-rows';
import { DatabaseClient } from '../../database/database.client';
import type { Sql } from '../../database/sql';
import { type Narrowed, prepared, sql } from '../../database/typed-sql';
import type { IPreviewsQuery, IPreviewsResult } from './invites.repository.types';

/** A link with what its use depends on: its bounds and its room's status and mode. */
export interface InviteRow {
  id: string;
  organization_id: string;
  room_id: string;
  expires_at: Date;
  max_uses: number;
  uses: number;
  room_status: RoomStatus;
  streaming_mode: StreamingMode | null;
}

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

const FIND = `SELECT i.id, i.organization_id, i.room_id, i.expires_at, i.max_uses, i.uses, r.status AS room_status, r.streaming_mode
  FROM invites i JOIN rooms r ON r.id = i.room_id AND r.organization_id = i.organization_id WHERE i.code_hash = $1`;

const ROOM_STATUS = `SELECT status FROM rooms WHERE id = $1 AND organization_id = $2`;

const INSERT = `INSERT INTO invites (room_id, organization_id, code_hash, expires_at, max_uses)
  SELECT r.id, r.organization_id, $3, $4, $5 FROM rooms r WHERE r.id = $1 AND r.organization_id = $2 RETURNING expires_at`;

const REVOKE_ALL = `DELETE FROM invites WHERE room_id = $1 AND organization_id = $2`;

const SPEND_USE = `UPDATE invites SET uses = uses + 1 WHERE id = $1 AND organization_id = $2`;

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
    const [invite] = await sql.rows<InviteRow>(lock ? `${FIND} FOR UPDATE OF i` : FIND, [codeHash]);
    return invite ?? null;
  }

  /** The status of the organization's room; null for a room it does not have. */
  async roomStatus(organizationId: string, roomId: string, sql: Sql = this.database): Promise<RoomStatus | null> {
    const [room] = await sql.rows<{ status: RoomStatus }>(ROOM_STATUS, [roomId, organizationId]);
    return room?.status ?? null;
  }

  /** Stores a link of the organization's room; its stored expiry (null: no such room of the organization). */
  async insert(invite: NewInvite, sql: Sql = this.database): Promise<Date | null> {
    const [row] = await sql.rows<{ expires_at: Date }>(INSERT, [
      invite.roomId,
      invite.organizationId,
      invite.codeHash,
      invite.expiresAt,
      invite.maxUses,
    ]);
    return row?.expires_at ?? null;
  }

  /** Removes every link of the organization's room; how many there were (another organization's room has none). */
  async revokeAll(organizationId: string, roomId: string, sql: Sql = this.database): Promise<number> {
    return sql.count(REVOKE_ALL, [roomId, organizationId]);
  }

  /** Spends one use of the link (its row locked by `find(…, true)` in the same transaction). */
  async spendUse(invite: Pick<InviteRow, 'id' | 'organization_id'>, sql: Sql = this.database): Promise<void> {
    await sql.rows(SPEND_USE, [invite.id, invite.organization_id]);
  }
}
