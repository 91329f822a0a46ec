import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Ledger1763800000000 implements MigrationInterface {
  name = 'Ledger1763800000000';

  async up(q: QueryRunner): Promise<void> {
    // The balance is kept here in the same transaction as each ledger row: reading it is one row.
    await q.query(`
      CREATE TABLE credit_accounts (
        organization_id uuid PRIMARY KEY REFERENCES organizations(id),
        balance_cents bigint NOT NULL DEFAULT 0,
        currency text NOT NULL
      )`);
    // Append-only: rows are never updated or deleted; a correction is a new row.
    await q.query(`
      CREATE TABLE ledger_entries (
        id bigserial PRIMARY KEY,
        organization_id uuid NOT NULL REFERENCES organizations(id),
        kind text NOT NULL CHECK (kind IN ('charge', 'purchase', 'grant', 'refund', 'adjustment')),
        delta_cents bigint NOT NULL,
        currency text NOT NULL,
        occurred_at timestamptz NOT NULL,
        room_id uuid REFERENCES rooms(id),
        connection_id bigint UNIQUE REFERENCES connections(id),
        provider_reference text,
        note text,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        CHECK ((kind = 'charge') = (connection_id IS NOT NULL))
      )`);
    await q.query(`CREATE UNIQUE INDEX ledger_entries_purchase_reference ON ledger_entries (provider_reference) WHERE kind = 'purchase'`);
    await q.query(
      `CREATE INDEX ledger_entries_credit_lines ON ledger_entries (organization_id, occurred_at DESC, id DESC) WHERE kind <> 'charge'`,
    );
    await q.query(`CREATE INDEX ledger_entries_room ON ledger_entries (room_id) WHERE room_id IS NOT NULL`);
    await q.query(`
      CREATE FUNCTION ledger_entries_append_only() RETURNS trigger AS $$
      BEGIN RAISE EXCEPTION 'ledger_entries is append-only'; END; $$ LANGUAGE plpgsql`);
    await q.query(`
      CREATE TRIGGER ledger_entries_append_only BEFORE UPDATE OR DELETE ON ledger_entries
      FOR EACH ROW EXECUTE FUNCTION ledger_entries_append_only()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE ledger_entries`);
    await q.query(`DROP FUNCTION ledger_entries_append_only`);
    await q.query(`DROP TABLE credit_accounts`);
  }
}
