import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The room list is ordered at the precision it shows: `created_at` is shown to the millisecond, so
 * rooms created within one millisecond are ordered by id (as they look equal), not by microseconds
 * nobody sees. The index follows the new order (`AT TIME ZONE 'UTC'` makes the truncation immutable,
 * which an index needs; it changes no digit below the second).
 */
export class RoomsNewestByMillisecond1763941910000 implements MigrationInterface {
  name = 'RoomsNewestByMillisecond1763941910000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX rooms_organization_newest_ms ON rooms (organization_id, date_trunc('milliseconds', created_at AT TIME ZONE 'UTC') DESC, id DESC)`,
    );
    await q.query(`DROP INDEX rooms_organization_newest`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX rooms_organization_newest ON rooms (organization_id, created_at DESC, id DESC)`);
    await q.query(`DROP INDEX rooms_organization_newest_ms`);
  }
}
