import { assertCanMintInvite, assertInviteUsable, inviteExpiresAt, inviteOffer, languagesRequired } from '@app/domain';
import { Injectable } from '@nestjs/common';
import type { Actor } from '../../common/auth/actor';
import { ApiError, INVITE_NOT_FOUND as UNKNOWN } from '../../common/errors/api-error';
import { JoinTokensService } from '../rooms/join-tokens.service';
import type { JoinTokenView } from '../rooms/join-token.dto';
import { RoomsRepository } from '../rooms/rooms.repository';
import { InviteCodesService } from './invite-codes.service';
import type { InvitePreviewView, MintedInviteView, MintInviteDto } from './invite.dto';
import { InvitesRepository, type InviteRow } from './invites.repository';
import { DatabaseClient } from '../../database/database.client';
import { AuditLogService } from '../audit/audit-log.service';

@Injectable()
export class InvitesService {
  constructor(
    private readonly database: DatabaseClient,
    private readonly invites: InvitesRepository,
    private readonly rooms: RoomsRepository,
    private readonly codes: InviteCodesService,
    private readonly tokens: JoinTokensService,
    private readonly audit: AuditLogService,
  ) {}

  async mint(actor: Actor, roomId: string, dto: MintInviteDto): Promise<MintedInviteView> {
    const status = await this.invites.roomStatus(actor.organizationId, roomId);
    if (!status) throw ApiError.notFound('Room not found.');
    assertCanMintInvite(status);
    const { code, hash } = this.codes.mint();
    const expiresAt = await this.database.transaction(async (tx) => {
      const inserted = await this.invites.insert(
        {
          organizationId: actor.organizationId,
          roomId,
          codeHash: hash,
          expiresAt: inviteExpiresAt(new Date(), dto.expires_in_seconds),
          maxUses: dto.max_uses,
        },
        tx,
      );
      // The code is a credential: the event names the room, never the code.
      if (inserted) {
        await this.audit.record(tx, actor, {
          action: 'invite.created',
          target: { type: 'room', id: roomId },
          details: { expires_at: inserted, max_uses: dto.max_uses },
        });
      }
      return inserted;
    });
    if (!expiresAt) throw ApiError.notFound('Room not found.');
    return { invite_code: code, expires_at: expiresAt, max_uses: dto.max_uses };
  }

  /** Removes every link of the room; another organization's room matches no row, silently (and leaves no audit event). */
  async revokeAll(actor: Actor, roomId: string): Promise<void> {
    await this.database.transaction(async (tx) => {
      const revoked = await this.invites.revokeAll(actor.organizationId, roomId, tx);
      if (revoked === 0) return;
      await this.audit.record(tx, actor, { action: 'invites.revoked', target: { type: 'room', id: roomId }, details: { revoked } });
    });
  }

  /** The link (by the stored hash of its verified code), its room, and the languages the room holds right now. */
  async preview(hash: Buffer): Promise<InvitePreviewView> {
    const invite = await this.invites.preview(hash);
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
      const found = await this.invites.find(hash, false, tx);
      if (!found) throw ApiError.notFound(UNKNOWN);
      const room = await this.rooms.lockAdmissions(found.organization_id, found.room_id, tx);
      const invite = await this.invites.find(hash, true, tx);
      if (!invite) throw ApiError.notFound(UNKNOWN);
      assertInviteUsable(this.facts(invite));
      if (!room) throw new Error('a usable invite belongs to a live room');
      const admission = await this.tokens.admit(tx, room, guest);
      await this.invites.spendUse(invite, tx);
      return admission;
    });
    return this.tokens.sign(admitted, guest);
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
