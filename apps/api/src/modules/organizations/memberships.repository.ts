import type { Role } from '@app/domain';
import { Injectable } from '@nestjs/common';
import { DatabaseClient } from '../../database/database.client';
import type { Sql } from '../../database/sql';
import { type Narrowed, sql } from '../../database/typed-sql';
import type { IActingMembershipQuery, IOrganizationsOfQuery, IOrganizationsOfResult } from './memberships.repository.types';

/** One of a user's organizations, with the user's role there (GET /v1/users/me/organizations). */
export type UserOrganizationRow = Narrowed<IOrganizationsOfResult, { role: Role }>;

// The organization named (when one is) among the user's, else the user's oldest.
const ACTING_MEMBERSHIP = sql<IActingMembershipQuery>`SELECT organization_id, role FROM memberships
  WHERE user_id = $userId! AND ($organizationId::uuid IS NULL OR organization_id = $organizationId::uuid)
  ORDER BY joined_at, organization_id LIMIT 1`;

const ORGANIZATIONS_OF = sql<IOrganizationsOfQuery>`SELECT m.organization_id, o.name, m.role, m.joined_at
  FROM memberships m JOIN organizations o ON o.id = m.organization_id
  WHERE m.user_id = $userId! ORDER BY m.joined_at, m.organization_id`;

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

  /** The user's organizations, oldest membership first. */
  async organizationsOf(userId: string, sql: Sql = this.database): Promise<UserOrganizationRow[]> {
    return sql.rows<IOrganizationsOfQuery, UserOrganizationRow>(ORGANIZATIONS_OF, { userId });
  }
}
