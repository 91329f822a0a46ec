import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Idempotency keys (with the first answer), low-balance thresholds, customer webhook endpoints,
 * the events they are sent (the outbox, written with the change) and one delivery per endpoint
 * and event. A statement inserting deliveries notifies `webhook_deliveries` at commit.
 */
export class Integrations1763930000000 implements MigrationInterface {
  name = 'Integrations1763930000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE idempotency_keys (
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        key text NOT NULL,
        fingerprint text NOT NULL,
        status_code integer,
        content_type text,
        body text,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (organization_id, key)
      )`);
    await q.query(`CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at)`);
    await q.query(`ALTER TABLE credit_accounts ADD COLUMN low_balance_cents bigint`);
    await q.query(`
      CREATE TABLE webhook_endpoints (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id),
        url text NOT NULL,
        events text[],
        description text,
        secret text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        deleted_at timestamptz
      )`);
    await q.query(
      `CREATE INDEX webhook_endpoints_live ON webhook_endpoints (organization_id, created_at DESC, id DESC) WHERE deleted_at IS NULL`,
    );
    await q.query(`
      CREATE TABLE webhook_events (
        seq bigserial PRIMARY KEY,
        id text NOT NULL UNIQUE,
        organization_id uuid NOT NULL REFERENCES organizations(id),
        type text NOT NULL,
        body text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await q.query(`
      CREATE TABLE webhook_deliveries (
        seq bigserial PRIMARY KEY,
        id uuid NOT NULL UNIQUE DEFAULT gen_random_uuid(),
        endpoint_id uuid NOT NULL REFERENCES webhook_endpoints(id),
        organization_id uuid NOT NULL REFERENCES organizations(id),
        event_seq bigint NOT NULL REFERENCES webhook_events(seq),
        lane text,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        max_attempts integer NOT NULL,
        last_status_code integer,
        last_error text,
        next_attempt_at timestamptz,
        locked_until timestamptz,
        delivered_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await q.query(`CREATE INDEX webhook_deliveries_log ON webhook_deliveries (endpoint_id, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'`);
    await q.query(`CREATE INDEX webhook_deliveries_lane ON webhook_deliveries (endpoint_id, lane, seq) WHERE status = 'pending'`);
    await q.query(`
      CREATE FUNCTION notify_webhook_deliveries() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('webhook_deliveries', '');
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER webhook_deliveries_inserted AFTER INSERT ON webhook_deliveries
        FOR EACH STATEMENT EXECUTE FUNCTION notify_webhook_deliveries()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE webhook_deliveries`);
    await q.query(`DROP FUNCTION notify_webhook_deliveries()`);
    await q.query(`DROP TABLE webhook_events`);
    await q.query(`DROP TABLE webhook_endpoints`);
    await q.query(`ALTER TABLE credit_accounts DROP COLUMN low_balance_cents`);
    await q.query(`DROP TABLE idempotency_keys`);
  }
}
