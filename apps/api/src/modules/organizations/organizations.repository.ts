import type { Role } from '@app/domain';
import { Injectable } from '@nestjs/common';
import { DatabaseClient } from '../../database/database.client';
import type { Sql, Tx } from '../../database/sql';
import { sql } from '../../database/typed-sql';
import type {
  IInsertOrganizationQuery,
  IInsertUserQuery,
  IOrganizationByReferenceQuery,
  IOrganizationExistsQuery,
  IUpsertExternalOrganizationQuery,
  IUpsertSessionUserQuery,
  IUserBySubjectQuery,
  IUserBySubjectResult,
} from './organizations.repository.types';

/** A user as the actor of a request sees it. */
export type UserRow = IUserBySubjectResult;

export interface NewUser {
  email: string;
  firstName: string;
  lastName: string;
}

/** A user signed in through the identity provider, known by its subject. */
export interface NewSessionUser extends NewUser {
  imageUrl: string;
  authSubject: string;
}

const INSERT_ORGANIZATION = sql<IInsertOrganizationQuery>`INSERT INTO organizations (name) VALUES ($name!) RETURNING id`;

// DO UPDATE (to the same value) rather than DO NOTHING, so the row is returned either way.
const UPSERT_EXTERNAL_ORGANIZATION = sql<IUpsertExternalOrganizationQuery>`INSERT INTO organizations (name, external_id) VALUES ($name!, $externalId!)
  ON CONFLICT (external_id) DO UPDATE SET external_id = EXCLUDED.external_id
  RETURNING id`;

const ORGANIZATION_EXISTS = sql<IOrganizationExistsQuery>`SELECT 1 AS found FROM organizations WHERE id = $organizationId!`;
/** `id::text`: a reference that is no uuid names no organization (instead of failing the cast). */
const ORGANIZATION_BY_REFERENCE = sql<IOrganizationByReferenceQuery>`SELECT id FROM organizations WHERE id::text = $reference!`;

const INSERT_USER = sql<IInsertUserQuery>`WITH u AS (
    INSERT INTO users (organization_id, email, first_name, last_name)
    VALUES ($organizationId!, $email!, $firstName!, $lastName!) RETURNING id, organization_id),
  m AS (INSERT INTO memberships (organization_id, user_id, role) SELECT organization_id, id, $role! FROM u)
  SELECT id FROM u`;

const USER_BY_SUBJECT = sql<IUserBySubjectQuery>`SELECT id, organization_id, email, first_name, last_name, image_url, created_at
  FROM users WHERE auth_subject = $authSubject!`;

// The first member of an organization is its owner; a later one the identity provider places in it (its
// `org_id` claim) joins as a viewer, for an owner to promote.
const UPSERT_SESSION_USER = sql<IUpsertSessionUserQuery>`WITH u AS (
    INSERT INTO users (organization_id, email, first_name, last_name, image_url, auth_subject)
    VALUES ($organizationId!, $email!, $firstName!, $lastName!, $imageUrl!, $authSubject!)
    ON CONFLICT (auth_subject) DO UPDATE SET auth_subject = EXCLUDED.auth_subject
    RETURNING id, organization_id, email, first_name, last_name, image_url, created_at),
  m AS (
    INSERT INTO memberships (organization_id, user_id, role)
    SELECT u.organization_id, u.id,
           CASE WHEN EXISTS (SELECT 1 FROM memberships o WHERE o.organization_id = u.organization_id) THEN 'viewer' ELSE 'owner' END
      FROM u ON CONFLICT (organization_id, user_id) DO NOTHING)
  SELECT id, organization_id, email, first_name, last_name, image_url, created_at FROM u`;

/** The `organizations` and their `users`. */
@Injectable()
export class OrganizationsRepository {
  constructor(private readonly database: DatabaseClient) {}

  /** A new organization's id. */
  async insert(name: string, tx: Tx): Promise<string> {
    const [row] = await tx.rows(INSERT_ORGANIZATION, { name });
    return row.id;
  }

  /** The id of the organization known to the identity provider by `externalId`, created on first use with `name`. */
  async upsertExternal(name: string, externalId: string, tx: Tx): Promise<string> {
    const [row] = await tx.rows(UPSERT_EXTERNAL_ORGANIZATION, { name, externalId });
    return row.id;
  }

  async exists(organizationId: string, sql: Sql = this.database): Promise<boolean> {
    return (await sql.rows(ORGANIZATION_EXISTS, { organizationId })).length > 0;
  }

  /** The organization a reference from outside (a payment's client reference) names, or null when it names none. */
  async idByReference(reference: string, sql: Sql = this.database): Promise<string | null> {
    const [row] = await sql.rows(ORGANIZATION_BY_REFERENCE, { reference });
    return row?.id ?? null;
  }

  /**
   * A new user's id, a member of the organization with `role`; an email already taken in the organization
   * (any case) fails on `users_organization_email`.
   */
  async insertUser(organizationId: string, user: NewUser, role: Role, tx: Tx): Promise<string> {
    const [row] = await tx.rows(INSERT_USER, { organizationId, ...user, role });
    return row.id;
  }

  async userBySubject(authSubject: string, sql: Sql = this.database): Promise<UserRow | undefined> {
    const [row] = await sql.rows(USER_BY_SUBJECT, { authSubject });
    return row;
  }

  /** The user of the subject, created in `organizationId` unless it exists (then left as it is, wherever it is). */
  async upsertSessionUser(organizationId: string, user: NewSessionUser, tx: Tx): Promise<UserRow> {
    const [row] = await tx.rows(UPSERT_SESSION_USER, { organizationId, ...user });
    return row;
  }
}
