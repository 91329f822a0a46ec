import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The webhook endpoint list and the delivery log are ordered at the precision they show:
 * `created_at` is shown to the millisecond, so rows created within one millisecond are ordered by id
 * (as they look equal), not by microseconds nobody sees. The indexes follow the new order
 * (`AT TIME ZONE 'UTC'` makes the truncation immutable, which an index needs; it changes no digit
 * below the second).
 */
export class WebhookListsByMillisecond1764200000000 implements MigrationInterface {
  name = 'WebhookListsByMillisecond1764200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX webhook_endpoints_live_ms ON webhook_endpoints
         (organization_id, date_trunc('milliseconds', created_at AT TIME ZONE 'UTC') DESC, id DESC) WHERE deleted_at IS NULL`,
    );
    await q.query(`DROP INDEX webhook_endpoints_live`);
    await q.query(
      `CREATE INDEX webhook_deliveries_log_ms ON webhook_deliveries
         (endpoint_id, date_trunc('milliseconds', created_at AT TIME ZONE 'UTC') DESC, id DESC)`,
    );
    await q.query(`DROP INDEX webhook_deliveries_log`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX webhook_deliveries_log ON webhook_deliveries (endpoint_id, created_at DESC, id DESC)`);
    await q.query(`DROP INDEX webhook_deliveries_log_ms`);
    await q.query(
      `CREATE INDEX webhook_endpoints_live ON webhook_endpoints (organization_id, created_at DESC, id DESC) WHERE deleted_at IS NULL`,
    );
    await q.query(`DROP INDEX webhook_endpoints_live_ms`);
  }
}
