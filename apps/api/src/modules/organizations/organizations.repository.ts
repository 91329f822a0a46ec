import { Injectable } from '@nestjs/common';
import { DatabaseClient } from '../../database/database.client';
import type { Sql } from '../../database/sql';

/** A user as the actor of a request sees it. */
export interface UserRow {
  id: string;
  organization_id: string;
  email: string;
  first_name: string;
  last_name: string;
  image_url: string;
  created_at: Date;
}

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

const USER_COLUMNS = `id, organization_id, email, first_name, last_name, image_url, created_at`;

const INSERT_ORGANIZATION = `INSERT INTO organizations (name) VALUES ($1) RETURNING id`;

// DO UPDATE (to the same value) rather than DO NOTHING, so the row is returned either way.
const UPSERT_EXTERNAL_ORGANIZATION = `INSERT INTO organizations (name, external_id) VALUES ($1, $2)
  ON CONFLICT (external_id) DO UPDATE SET external_id = EXCLUDED.external_id
  RETURNING id`;

const ORGANIZATION_EXISTS = `SELECT 1 FROM organizations WHERE id = $1`;
/** `id::text`: a reference that is no uuid names no organization (instead of failing the cast). */
const ORGANIZATION_BY_REFERENCE = `SELECT id FROM organizations WHERE id::text = $1`;

const INSERT_USER = `INSERT INTO users (organization_id, email, first_name, last_name) VALUES ($1, $2, $3, $4) RETURNING id`;

const USER_BY_SUBJECT = `SELECT ${USER_COLUMNS} FROM users WHERE auth_subject = $1`;

const UPSERT_SESSION_USER = `INSERT INTO users (organization_id, email, first_name, last_name, image_url, auth_subject)
  VALUES ($1, $2, $3, $4, $5, $6)
  ON CONFLICT (auth_subject) DO UPDATE SET auth_subject = EXCLUDED.auth_subject
  RETURNING ${USER_COLUMNS}`;

/** The `organizations` and their `users`. */
@Injectable()
export class OrganizationsRepository {
  constructor(private readonly database: DatabaseClient) {}

  /** A new organization's id. */
  async insert(name: string, sql: Sql = this.database): Promise<string> {
    const [row] = await sql.rows<{ id: string }>(INSERT_ORGANIZATION, [name]);
    return row.id;
  }

  /** The id of the organization known to the identity provider by `externalId`, created on first use with `name`. */
  async upsertExternal(name: string, externalId: string, sql: Sql = this.database): Promise<string> {
    const [row] = await sql.rows<{ id: string }>(UPSERT_EXTERNAL_ORGANIZATION, [name, externalId]);
    return row.id;
  }

  async exists(organizationId: string, sql: Sql = this.database): Promise<boolean> {
    return (await sql.rows(ORGANIZATION_EXISTS, [organizationId])).length > 0;
  }

  /** The organization a reference from outside (a payment's client reference) names, or null when it names none. */
  async idByReference(reference: string, sql: Sql = this.database): Promise<string | null> {
    const [row] = await sql.rows<{ id: string }>(ORGANIZATION_BY_REFERENCE, [reference]);
    return row?.id ?? null;
  }

  /** A new user's id; an email already taken in the organization (any case) fails on `users_organization_email`. */
  async insertUser(organizationId: string, user: NewUser, sql: Sql = this.database): Promise<string> {
    const [row] = await sql.rows<{ id: string }>(INSERT_USER, [organizationId, user.email, user.firstName, user.lastName]);
    return row.id;
  }

  async userBySubject(authSubject: string, sql: Sql = this.database): Promise<UserRow | undefined> {
    const [row] = await sql.rows<UserRow>(USER_BY_SUBJECT, [authSubject]);
    return row;
  }

  /** The user of the subject, created in `organizationId` unless it exists (then left as it is, wherever it is). */
  async upsertSessionUser(organizationId: string, user: NewSessionUser, sql: Sql = this.database): Promise<UserRow> {
    const [row] = await sql.rows<UserRow>(UPSERT_SESSION_USER, [
      organizationId,
      user.email,
      user.firstName,
      user.lastName,
      user.imageUrl,
      user.authSubject,
    ]);
    return row;
  }
}
