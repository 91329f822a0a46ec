import type { MigrationInterface, QueryRunner } from 'typeorm';

/** GET /v1/billing/burn sums an organization's open connections: their partial index by organization. */
export class OpenConnectionsByOrganization1764700000000 implements MigrationInterface {
  name = 'OpenConnectionsByOrganization1764700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX connections_open_by_organization ON connections (organization_id) INCLUDE (cents_per_minute) WHERE left_at IS NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX connections_open_by_organization`);
  }
}
