import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The order events were stored in. Deliveries stored together share one millisecond (and can share
 * a microsecond) of `received_at`, so applying "in the order received" needs a sequence.
 */
export class InboundEventSequence1763860000000 implements MigrationInterface {
  name = 'InboundEventSequence1763860000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE inbound_events ADD COLUMN seq bigserial`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE inbound_events DROP COLUMN seq`);
  }
}
