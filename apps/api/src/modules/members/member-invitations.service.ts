import { exceeds, type Role } from '@app/domain';
import { Injectable } from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import type { Actor } from '../../common/auth/actor';
import { ApiError } from '../../common/errors/api-error';
import { toPage, type Page } from '../../common/pagination/page';
import type { PageQueryDto } from '../../common/pagination/page-query.dto';
import { DatabaseClient } from '../../database/database.client';
import { MembershipsRepository } from '../organizations/memberships.repository';
import type { CreatedInvitationView, MembershipView } from './member.dto';
import { MemberInvitationsRepository, type InvitationRow } from './member-invitations.repository';
import { AuditLogService } from '../audit/audit-log.service';

const VALID_FOR_MS = 7 * 24 * 3600_000;
const tokenHash = (token: string) => createHash('sha256').update(token, 'utf8').digest();

/**
 * Invitations to join an organization: made by a member with `members:write` for a role not above their
 * own, accepted once, within 7 days, by a session whose verified email is the invited one.
 */
@Injectable()
export class MemberInvitationsService {
  constructor(
    private readonly database: DatabaseClient,
    private readonly invitations: MemberInvitationsRepository,
    private readonly memberships: MembershipsRepository,
    private readonly audit: AuditLogService,
  ) {}

  async create(actor: Actor, email: string, role: Role): Promise<CreatedInvitationView> {
    if (exceeds(role, actor.role)) throw ApiError.forbidden(`A ${actor.role} cannot invite a ${role}: the role is above their own.`);
    const token = `inv_${randomBytes(32).toString('base64url')}`;
    const row = await this.database.transaction(async (tx) => {
      const invitation = await this.invitations.insert(
        {
          organizationId: actor.organizationId,
          email,
          role,
          invitedBy: actor.userId,
          tokenHash: tokenHash(token),
          expiresAt: new Date(Date.now() + VALID_FOR_MS),
        },
        tx,
      );
      await this.audit.record(tx, actor, {
        action: 'member_invitation.created',
        target: { type: 'member_invitation', id: invitation.id },
        details: { email, role, expires_at: invitation.expires_at },
      });
      return invitation;
    });
    return { ...row, invitation_token: token };
  }

  async list(actor: Actor, query: PageQueryDto): Promise<Page<InvitationRow>> {
    return toPage(await this.invitations.pendingPage(actor.organizationId, query.limit + 1, query.offset), query);
  }

  async revoke(actor: Actor, id: string): Promise<void> {
    await this.database.transaction(async (tx) => {
      if (!(await this.invitations.revoke(actor.organizationId, id, tx))) throw ApiError.notFound('Invitation not found.');
      await this.audit.record(tx, actor, { action: 'member_invitation.revoked', target: { type: 'member_invitation', id } });
    });
  }

  /** Joins the invitation's organization with its role; a member already keeps the role it has. */
  async accept(actor: Actor, token: string): Promise<MembershipView> {
    if (actor.apiKeyId !== null)
      throw ApiError.forbidden('An invitation is accepted with a session of the invited person, not an API key.');
    return this.database.transaction(async (tx) => {
      const invitation = await this.invitations.lockByToken(tokenHash(token), tx);
      if (!invitation) throw ApiError.notFound('Invitation not found.');
      if (!actor.emailVerified || invitation.email.toLowerCase() !== actor.email.toLowerCase()) {
        throw ApiError.forbidden('This invitation is for another email address (or yours is not verified).');
      }
      if (invitation.accepted) throw ApiError.gone('This invitation was already accepted.');
      if (invitation.revoked) throw ApiError.gone('This invitation was revoked.');
      if (invitation.expired) throw ApiError.gone('This invitation expired.');
      await this.invitations.markAccepted(invitation.organization_id, invitation.id, actor.userId, tx);
      const joined = await this.memberships.add(invitation.organization_id, actor.userId, invitation.role, tx);
      // In the organization the invitation is for, whichever one the session acts in.
      await this.audit.record(
        tx,
        { ...actor, organizationId: invitation.organization_id },
        {
          action: 'member_invitation.accepted',
          target: { type: 'member_invitation', id: invitation.id },
          details: { email: invitation.email, role: invitation.role, already_a_member: joined === null },
        },
      );
      const [membership] = (await this.memberships.organizationsOf(actor.userId, tx)).filter(
        (m) => m.organization_id === invitation.organization_id,
      );
      return membership;
    });
  }
}
