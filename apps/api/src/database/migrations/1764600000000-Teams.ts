import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Teams (extensions.md "Teams", "Scoped and expiring API keys"): a user's role in each organization it
 * belongs to, and an API key's scopes and expiry.
 * - `memberships`: one row per organization and user; every user already in an organization becomes its
 *   `owner`, so every existing caller keeps what it could do. `joined_at` orders a user's organizations
 *   (the oldest is the one a session acts in without `Organization-Id`) and the member list.
 * - `api_keys.scopes`: null = every permission of the creator's role; `expires_at`: null = never.
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
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE api_keys DROP COLUMN expires_at, DROP COLUMN scopes`);
    await q.query(`DROP TABLE memberships`);
  }
}
