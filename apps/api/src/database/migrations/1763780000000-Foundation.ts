import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Foundation1763780000000 implements MigrationInterface {
  name = 'Foundation1763780000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE organizations (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name text NOT NULL,
        external_id text UNIQUE,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await q.query(`
      CREATE TABLE users (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id),
        email text NOT NULL,
        first_name text NOT NULL DEFAULT '',
        last_name text NOT NULL DEFAULT '',
        image_url text NOT NULL DEFAULT '',
        auth_subject text UNIQUE,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await q.query(`CREATE UNIQUE INDEX users_organization_email ON users (organization_id, lower(email))`);
    await q.query(`
      CREATE TABLE api_keys (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id),
        created_by_user_id uuid NOT NULL REFERENCES users(id),
        name varchar(120) NOT NULL,
        key_prefix text NOT NULL,
        key_last4 text NOT NULL,
        key_hash bytea NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        last_used_at timestamptz,
        revoked_at timestamptz
      )`);
    await q.query(`CREATE UNIQUE INDEX api_keys_key_hash ON api_keys (key_hash)`);
    await q.query(
      `CREATE INDEX api_keys_organization_newest ON api_keys (organization_id, created_at DESC, id DESC) WHERE revoked_at IS NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE api_keys`);
    await q.query(`DROP TABLE users`);
    await q.query(`DROP TABLE organizations`);
  }
}
