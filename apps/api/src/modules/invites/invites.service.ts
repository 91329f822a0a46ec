import { assertCanMintInvite, assertInviteUsable, inviteExpiresAt, inviteOffer, languagesRequired, type RoomStatus } from '@app/domain';
import { Injectable } from '@nestjs/common';
import type { Actor } from '../../common/auth/actor';
import { ApiError, INVITE_NOT_FOUND as UNKNOWN } from '../../common/errors/api-error';
import type { BatchedLoader } from '../../common/batching/batched-loader';
import { batchedRows } from '../../common/batching/batched-rows';
import { JoinTokensService } from '../rooms/join-tokens.service';
import { heldLanguagesSql } from '../rooms/room-queries';
import type { JoinTokenView } from '../rooms/join-token.dto';
import { InviteCodes } from './invite-codes';
import type { InvitePreviewView, MintedInviteView, MintInviteDto } from './invite.dto';
import { Database } from '../../database/database';
import type { Sql } from '../../database/sql';

interface InviteRow {
  id: string;
  room_id: string;
  expires_at: Date;
  max_uses: number;
  uses: number;
  room_status: RoomStatus;
  streaming_mode: 'mono' | 'dual' | null;
}

type PreviewRow = Omit<InviteRow, 'id' | 'room_id'> & { code_hash: Buffer; held: string[] };

@Injectable()
export class InvitesService {
  /**
   * Previews arriving together are read with one statement (by the codes' stored hashes); each read
   * still starts after its request arrived.
   */
  private readonly previews: BatchedLoader<string, PreviewRow>;

  constructor(
    private readonly database: Database,
    private readonly codes: InviteCodes,
    private readonly tokens: JoinTokensService,
  ) {
    this.previews = batchedRows<string, PreviewRow>(
      database,
      {
        name: 'invite_previews',
        text: `SELECT i.code_hash, i.expires_at, i.max_uses, i.uses, r.status AS room_status, r.streaming_mode,
                      ${heldLanguagesSql('r.id')} AS held
                 FROM invites i JOIN rooms r ON r.id = i.room_id WHERE i.code_hash = ANY($1::bytea[])`,
      },
      (row) => row.code_hash.toString('hex'),
      (hexHashes) => hexHashes.map((hex) => Buffer.from(hex, 'hex')),
    );
  }

  async mint(actor: Actor, roomId: string, dto: MintInviteDto): Promise<MintedInviteView> {
    const [room] = (await this.database.rows(`SELECT status FROM rooms WHERE id = $1 AND organization_id = $2`, [
      roomId,
      actor.organizationId,
    ])) as {
      status: RoomStatus;
    }[];
    if (!room) throw ApiError.notFound('Room not found.');
    assertCanMintInvite(room.status);
    const { code, hash } = this.codes.mint();
    const [row] = (await this.database.rows(
      `INSERT INTO invites (room_id, organization_id, code_hash, expires_at, max_uses) VALUES ($1, $2, $3, $4, $5) RETURNING expires_at`,
      [roomId, actor.organizationId, hash, inviteExpiresAt(new Date(), dto.expires_in_seconds), dto.max_uses],
    )) as { expires_at: Date }[];
    return { invite_code: code, expires_at: row.expires_at, max_uses: dto.max_uses };
  }

  /** Removes every link of the room; another organization's room matches no row, silently. */
  async revokeAll(actor: Actor, roomId: string): Promise<void> {
    await this.database.rows(`DELETE FROM invites WHERE room_id = $1 AND organization_id = $2`, [roomId, actor.organizationId]);
  }

  /** The link (by the stored hash of its verified code), its room, and the languages the room holds right now. */
  async preview(hash: Buffer): Promise<InvitePreviewView> {
    const invite = await this.previews.load(hash.toString('hex'));
    if (!invite) throw ApiError.notFound(UNKNOWN);
    assertInviteUsable(this.facts(invite));
    return {
      active_languages: inviteOffer(invite.held),
      mode: invite.streaming_mode,
      languages_required: languagesRequired(invite.streaming_mode),
      room_status: invite.room_status,
    };
  }

  /** One use is spent only by a join that succeeds, under the room's lock: N racing joins on k uses give min(N, k). */
  async join(hash: Buffer, request: { languages: string[]; name?: string }): Promise<JoinTokenView> {
    const guest = { languages: request.languages, name: request.name, kind: 'guest' as const };
    const admitted = await this.database.transaction(async (tx) => {
      const found = await this.find(tx, hash, false);
      const room = await this.tokens.lockAdmissions(tx, found.room_id);
      const invite = await this.find(tx, hash, true);
      assertInviteUsable(this.facts(invite));
      if (!room) throw new Error('a usable invite belongs to a live room');
      const admission = await this.tokens.admit(tx, room, guest);
      await tx.rows(`UPDATE invites SET uses = uses + 1 WHERE id = $1`, [invite.id]);
      return admission;
    });
    return this.tokens.sign(admitted, guest);
  }

  private async find(tx: Sql, hash: Buffer, lock: boolean): Promise<InviteRow> {
    const [invite] = (await tx.rows(
      `SELECT i.id, i.room_id, i.expires_at, i.max_uses, i.uses, r.status AS room_status, r.streaming_mode
         FROM invites i JOIN rooms r ON r.id = i.room_id WHERE i.code_hash = $1 ${lock ? 'FOR UPDATE OF i' : ''}`,
      [hash],
    )) as InviteRow[];
    if (!invite) throw ApiError.notFound(UNKNOWN);
    return invite;
  }

  private facts(invite: Pick<InviteRow, 'expires_at' | 'max_uses' | 'uses' | 'room_status'>) {
    return {
      expiresAt: invite.expires_at,
      maxUses: invite.max_uses,
      usesSpent: invite.uses,
      roomStatus: invite.room_status,
      now: new Date(),
    };
  }
}
