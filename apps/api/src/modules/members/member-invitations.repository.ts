import type { Role } from '@app/domain';
import { Injectable } from '@nestjs/common';
import { DatabaseClient } from '../../database/database.client';
import type { Sql, Tx } from '../../database/sql';
import { type Narrowed, sql } from '../../database/typed-sql';
import type {
  IInsertInvitationQuery,
  IInsertInvitationResult,
  ILockByTokenQuery,
  ILockByTokenResult,
  IMarkAcceptedQuery,
  IPendingPageQuery,
  IRevokePendingQuery,
} from './member-invitations.repository.types';

/** An invitation as its organization sees it (never its token). */
export type InvitationRow = Narrowed<IInsertInvitationResult, { role: Role }>;

/** An invitation found by its token, locked, with what accepting it needs to know. */
export type LockedInvitation = Narrowed<ILockByTokenResult, { role: Role }>;

const INSERT_INVITATION = sql<IInsertInvitationQuery>`INSERT INTO member_invitations
    (organization_id, email, role, invited_by_user_id, token_hash, expires_at)
  VALUES ($organizationId!, $email!, $role!, $invitedBy!, $tokenHash!, $expiresAt!)
  RETURNING id, email, role, created_at, expires_at`;

// Pending: neither accepted nor revoked, not expired. Oldest first, ties by id.
const PENDING_PAGE = sql<IPendingPageQuery>`SELECT id, email, role, created_at, expires_at FROM member_invitations
  WHERE organization_id = $organizationId! AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now()
  ORDER BY created_at, id LIMIT $limit! OFFSET $offset!`;

const REVOKE_PENDING = sql<IRevokePendingQuery>`UPDATE member_invitations SET revoked_at = now()
  WHERE id = $id! AND organization_id = $organizationId! AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now()
  RETURNING id`;

// Across organizations: a token names its invitation (and so its organization) by itself.
const LOCK_BY_TOKEN = sql<ILockByTokenQuery>`SELECT i.id, i.organization_id, o.name AS organization_name, i.email, i.role,
    i.expires_at <= now() AS "expired!", i.accepted_at IS NOT NULL AS "accepted!", i.revoked_at IS NOT NULL AS "revoked!"
  FROM member_invitations i JOIN organizations o ON o.id = i.organization_id
  WHERE i.token_hash = $tokenHash! FOR UPDATE OF i`;

const MARK_ACCEPTED = sql<IMarkAcceptedQuery>`UPDATE member_invitations SET accepted_at = now(), accepted_by_user_id = $userId!
  WHERE id = $id! AND organization_id = $organizationId! AND accepted_at IS NULL`;

/** The `member_invitations` rows: invitations to join an organization, accepted once by the invited email. */
@Injectable()
export class MemberInvitationsRepository {
  constructor(private readonly database: DatabaseClient) {}

  async insert(
    invitation: { organizationId: string; email: string; role: Role; invitedBy: string; tokenHash: Buffer; expiresAt: Date },
    tx: Tx,
  ): Promise<InvitationRow> {
    const [row] = await tx.rows<IInsertInvitationQuery, InvitationRow>(INSERT_INVITATION, invitation);
    return row;
  }

  async pendingPage(organizationId: string, limit: number, offset: number, sql: Sql = this.database): Promise<InvitationRow[]> {
    return sql.rows<IPendingPageQuery, InvitationRow>(PENDING_PAGE, { organizationId, limit, offset });
  }

  /** False when the organization has no such pending invitation. */
  async revoke(organizationId: string, id: string, tx: Tx): Promise<boolean> {
    return (await tx.rows(REVOKE_PENDING, { organizationId, id })).length > 0;
  }

  /** The invitation of this token hash, locked until the transaction ends (concurrent accepts wait, then find it used). */
  async lockByToken(tokenHash: Buffer, tx: Tx): Promise<LockedInvitation | null> {
    const [row] = await tx.rows<ILockByTokenQuery, LockedInvitation>(LOCK_BY_TOKEN, { tokenHash });
    return row ?? null;
  }

  async markAccepted(organizationId: string, id: string, userId: string, tx: Tx): Promise<void> {
    await tx.rows(MARK_ACCEPTED, { organizationId, id, userId });
  }
}
