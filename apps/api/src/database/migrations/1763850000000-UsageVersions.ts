import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A counter per organization that moves in the same transaction as every write to its usage
 * rollup, so a usage overview computed at one version can be served again until the next write.
 */
export class UsageVersions1763850000000 implements MigrationInterface {
  name = 'UsageVersions1763850000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE usage_versions (
        organization_id uuid PRIMARY KEY REFERENCES organizations(id),
        version bigint NOT NULL
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE usage_versions`);
  }
}
