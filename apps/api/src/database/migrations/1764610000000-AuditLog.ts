import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The audit log (extensions.md "Audit log"): one row per change, written in the change's own
 * transaction, and per refused request (403).
 * - Append-only: a trigger refuses UPDATE, DELETE and TRUNCATE, except a DELETE by the retention job,
 *   which sets `app.audit_retention = 'on'` for its own transaction only (`SET LOCAL`).
 * - `seq` orders rows written in one instant (newest first); `occurred_at` is the clock at the insert.
 * - No foreign key to users or keys: a row says who acted as they were then, whatever happens to them.
 */
export class AuditLog1764610000000 implements MigrationInterface {
  name = 'AuditLog1764610000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE audit_events (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        seq bigint GENERATED ALWAYS AS IDENTITY,
        organization_id uuid NOT NULL REFERENCES organizations(id),
        occurred_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        action text NOT NULL,
        actor_type text NOT NULL CHECK (actor_type IN ('user', 'api_key', 'operator', 'system')),
        actor_user_id uuid,
        actor_email text,
        actor_api_key_id uuid,
        actor_api_key_prefix text,
        target_type text NOT NULL,
        target_id text NOT NULL,
        request_id text,
        ip text,
        details jsonb NOT NULL DEFAULT '{}'
      )`);
    await q.query(`CREATE INDEX audit_events_newest ON audit_events (organization_id, occurred_at DESC, seq DESC)`);
    await q.query(`CREATE INDEX audit_events_target ON audit_events (organization_id, target_id)`);
    await q.query(`CREATE INDEX audit_events_retention ON audit_events (occurred_at)`);
    await q.query(`
      CREATE FUNCTION audit_events_append_only() RETURNS trigger AS $$
      BEGIN
        IF TG_OP = 'DELETE' AND current_setting('app.audit_retention', true) = 'on' THEN RETURN OLD; END IF;
        RAISE EXCEPTION 'audit_events is append-only: % refused', TG_OP;
      END; $$ LANGUAGE plpgsql`);
    await q.query(`
      CREATE TRIGGER audit_events_append_only BEFORE UPDATE OR DELETE ON audit_events
      FOR EACH ROW EXECUTE FUNCTION audit_events_append_only()`);
    await q.query(`
      CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events
      FOR EACH STATEMENT EXECUTE FUNCTION audit_events_append_only()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE audit_events`);
    await q.query(`DROP FUNCTION audit_events_append_only`);
  }
}
