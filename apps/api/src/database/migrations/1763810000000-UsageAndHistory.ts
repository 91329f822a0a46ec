import type { MigrationInterface, QueryRunner } from 'typeorm';

export class UsageAndHistory1763810000000 implements MigrationInterface {
  name = 'UsageAndHistory1763810000000';

  async up(q: QueryRunner): Promise<void> {
    // Usage rollup per organization and 15-minute slot of the rooms' start (every zone offset is a
    // multiple of 15 minutes, so local hours, days and weeks are unions of slots).
    await q.query(`
      CREATE TABLE usage_slots (
        organization_id uuid NOT NULL REFERENCES organizations(id),
        slot timestamptz NOT NULL,
        minutes bigint NOT NULL DEFAULT 0,
        sessions integer NOT NULL DEFAULT 0,
        participants integer NOT NULL DEFAULT 0,
        PRIMARY KEY (organization_id, slot)
      )`);
    await q.query(`CREATE INDEX rooms_organization_started ON rooms (organization_id, started_at) WHERE started_at IS NOT NULL`);
    await q.query(
      `CREATE INDEX rooms_billed_newest ON rooms (organization_id, started_at DESC, (id::text) DESC) WHERE total_charged_cents > 0`,
    );
    await q.query(`DROP INDEX ledger_entries_credit_lines`);
    await q.query(
      `CREATE INDEX ledger_entries_credit_lines ON ledger_entries (organization_id, occurred_at DESC, (lpad(id::text, 20, '0')) DESC) WHERE kind <> 'charge'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX ledger_entries_credit_lines`);
    await q.query(
      `CREATE INDEX ledger_entries_credit_lines ON ledger_entries (organization_id, occurred_at DESC, id DESC) WHERE kind <> 'charge'`,
    );
    await q.query(`DROP INDEX rooms_billed_newest`);
    await q.query(`DROP INDEX rooms_organization_started`);
    await q.query(`DROP TABLE usage_slots`);
  }
}
