import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Teams (extensions.md "Teams", "Scoped and expiring API keys"): a user's role in each organization it
 * belongs to, and an API key's scopes and expiry.
 * - `memberships`: one row per organization and user; every user already in an organization becomes its
 *   `owner`, so every existing caller keeps what it could do. `joined_at` orders a user's organizations
 *   (the oldest is the one a session acts in without `Organization-Id`) and the member list.
 * - `api_keys.scopes`: null = every permission of the creator's role; `expires_at`: null = never.
 * - `member_invitations`: a pending invitation is neither accepted nor revoked and not expired; only the
 *   SHA-256 of its token is kept.
 */
export class Teams1764600000000 implements MigrationInterface {
  name = 'Teams1764600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE memberships (
        organization_id uuid NOT NULL REFERENCES organizations(id),
        user_id uuid NOT NULL REFERENCES users(id),
        role text NOT NULL CHECK (role IN ('owner', 'admin', 'developer', 'billing', 'viewer')),
        joined_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (organization_id, user_id)
      )`);
    await q.query(`CREATE INDEX memberships_user_oldest ON memberships (user_id, joined_at, organization_id)`);
    await q.query(
      `INSERT INTO memberships (organization_id, user_id, role, joined_at) SELECT organization_id, id, 'owner', created_at FROM users`,
    );
    await q.query(`ALTER TABLE api_keys ADD COLUMN scopes text[], ADD COLUMN expires_at timestamptz`);
    await q.query(`
      CREATE TABLE member_invitations (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id),
        email text NOT NULL,
        role text NOT NULL CHECK (role IN ('owner', 'admin', 'developer', 'billing', 'viewer')),
        invited_by_user_id uuid NOT NULL REFERENCES users(id),
        token_hash bytea NOT NULL UNIQUE,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        expires_at timestamptz NOT NULL,
        accepted_at timestamptz,
        accepted_by_user_id uuid REFERENCES users(id),
        revoked_at timestamptz
      )`);
    await q.query(
      `CREATE INDEX member_invitations_pending ON member_invitations (organization_id, created_at, id) WHERE accepted_at IS NULL AND revoked_at IS NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE member_invitations`);
    await q.query(`ALTER TABLE api_keys DROP COLUMN expires_at, DROP COLUMN scopes`);
    await q.query(`DROP TABLE memberships`);
  }
}
