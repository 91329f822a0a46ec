import type { Role } from '@app/domain';
import { Injectable } from '@nestjs/common';
import { DatabaseClient } from '../../database/database.client';
import type { Sql, Tx } from '../../database/sql';
import { type Narrowed, sql } from '../../database/typed-sql';
import type {
  IActingMembershipQuery,
  IAddMemberQuery,
  IChangeRoleQuery,
  ILockMembersQuery,
  IMemberPageQuery,
  IMemberPageResult,
  IOrganizationsOfQuery,
  IOrganizationsOfResult,
  IRemoveMemberQuery,
  IRevokeKeysOfQuery,
} from './memberships.repository.types';

/** One of a user's organizations, with the user's role there (GET /v1/users/me/organizations). */
export type UserOrganizationRow = Narrowed<IOrganizationsOfResult, { role: Role }>;

// The organization named (when one is) among the user's, else the user's oldest.
const ACTING_MEMBERSHIP = sql<IActingMembershipQuery>`SELECT organization_id, role FROM memberships
  WHERE user_id = $userId! AND ($organizationId::uuid IS NULL OR organization_id = $organizationId::uuid)
  ORDER BY joined_at, organization_id LIMIT 1`;

const ORGANIZATIONS_OF = sql<IOrganizationsOfQuery>`SELECT m.organization_id, o.name, m.role, m.joined_at
  FROM memberships m JOIN organizations o ON o.id = m.organization_id
  WHERE m.user_id = $userId! ORDER BY m.joined_at, m.organization_id`;

/** A member as GET /v1/members shows it. */
export type MemberRow = Narrowed<IMemberPageResult, { role: Role }>;

// Oldest first; ties by user id.
const MEMBER_PAGE = sql<IMemberPageQuery>`SELECT m.user_id, u.email, u.first_name, u.last_name, m.role, m.joined_at
  FROM memberships m JOIN users u ON u.id = m.user_id
  WHERE m.organization_id = $organizationId! AND ($userId::uuid IS NULL OR m.user_id = $userId::uuid)
  ORDER BY m.joined_at, m.user_id LIMIT $limit! OFFSET $offset!`;

// The organization's memberships, locked: the owner rules read them whole (never zero owners).
const LOCK_MEMBERS = sql<ILockMembersQuery>`SELECT user_id, role FROM memberships WHERE organization_id = $organizationId!
  ORDER BY user_id FOR UPDATE`;

const CHANGE_ROLE = sql<IChangeRoleQuery>`UPDATE memberships SET role = $role! WHERE organization_id = $organizationId! AND user_id = $userId!`;

const REMOVE_MEMBER = sql<IRemoveMemberQuery>`DELETE FROM memberships WHERE organization_id = $organizationId! AND user_id = $userId!`;

// A removed member's keys stop working at once (they would find no membership anyway; revoked, they say so in the list).
const REVOKE_KEYS_OF = sql<IRevokeKeysOfQuery>`UPDATE api_keys SET revoked_at = now()
  WHERE organization_id = $organizationId! AND created_by_user_id = $userId! AND revoked_at IS NULL`;

const ADD_MEMBER = sql<IAddMemberQuery>`INSERT INTO memberships (organization_id, user_id, role) VALUES ($organizationId!, $userId!, $role!)
  ON CONFLICT (organization_id, user_id) DO NOTHING RETURNING joined_at`;

/** The `memberships` rows: which organizations a user belongs to, with which role. */
@Injectable()
export class MembershipsRepository {
  constructor(private readonly database: DatabaseClient) {}

  /** The membership a session acts in: `organizationId` if the user belongs to it, else (none named) the oldest; null otherwise. */
  async acting(
    userId: string,
    organizationId: string | null,
    sql: Sql = this.database,
  ): Promise<{ organizationId: string; role: Role } | null> {
    const [row] = await sql.rows(ACTING_MEMBERSHIP, { userId, organizationId });
    return row ? { organizationId: row.organization_id, role: row.role as Role } : null;
  }

  /** One page of the organization's members, oldest first (or the one member `userId`). */
  async page(
    organizationId: string,
    limit: number,
    offset: number,
    userId: string | null = null,
    sql: Sql = this.database,
  ): Promise<MemberRow[]> {
    return sql.rows<IMemberPageQuery, MemberRow>(MEMBER_PAGE, { organizationId, limit, offset, userId });
  }

  /** Locks the organization's memberships until the transaction ends; their roles by user. */
  async lockMembers(organizationId: string, tx: Tx): Promise<Map<string, Role>> {
    return new Map((await tx.rows(LOCK_MEMBERS, { organizationId })).map((row) => [row.user_id, row.role as Role]));
  }

  async changeRole(organizationId: string, userId: string, role: Role, tx: Tx): Promise<void> {
    await tx.rows(CHANGE_ROLE, { organizationId, userId, role });
  }

  /** Removes the member and revokes the API keys they made in the organization. */
  async remove(organizationId: string, userId: string, tx: Tx): Promise<void> {
    await tx.rows(REMOVE_MEMBER, { organizationId, userId });
    await tx.rows(REVOKE_KEYS_OF, { organizationId, userId });
  }

  /** Adds the user with `role`; when already a member, nothing changes (null). */
  async add(organizationId: string, userId: string, role: Role, tx: Tx): Promise<Date | null> {
    const [row] = await tx.rows(ADD_MEMBER, { organizationId, userId, role });
    return row?.joined_at ?? null;
  }

  /** The user's organizations, oldest membership first. */
  async organizationsOf(userId: string, sql: Sql = this.database): Promise<UserOrganizationRow[]> {
    return sql.rows<IOrganizationsOfQuery, UserOrganizationRow>(ORGANIZATIONS_OF, { userId });
  }
}
