import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Metering that does not depend on the order events arrive in (docs/decisions.md "Order-independent metering"):
 * - `inbound_events.subject` (a LiveKit event's room name), so applying an event first applies the
 *   events of its room stored before it and not applied yet;
 * - `charge_correction` ledger lines: a later event that moves a connection's end earlier corrects
 *   its charge with a new line (the ledger stays append-only), so a connection has one `charge` and
 *   any number of corrections;
 * - `rooms.settles_at` / `settled_at`: `room.ended` is sent once the room has settled, with its final totals.
 */
export class OrderIndependentMetering1764300000000 implements MigrationInterface {
  name = 'OrderIndependentMetering1764300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE inbound_events ADD COLUMN subject text`);
    await q.query(`UPDATE inbound_events SET subject = payload->'room'->>'name' WHERE provider = 'livekit'`);
    await q.query(
      `CREATE INDEX inbound_events_unapplied_by_subject ON inbound_events (provider, subject, seq) WHERE processed_at IS NULL AND subject IS NOT NULL`,
    );

    await q.query(`ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_kind_check`);
    await q.query(`ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_check`);
    await q.query(`ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_connection_id_key`);
    await q.query(
      `ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_kind_check
         CHECK (kind IN ('charge', 'charge_correction', 'purchase', 'grant', 'refund', 'adjustment'))`,
    );
    await q.query(
      `ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_connection_lines
         CHECK ((kind IN ('charge', 'charge_correction')) = (connection_id IS NOT NULL))`,
    );
    await q.query(`CREATE UNIQUE INDEX ledger_entries_one_charge_per_connection ON ledger_entries (connection_id) WHERE kind = 'charge'`);
    await q.query(`CREATE INDEX ledger_entries_corrections ON ledger_entries (connection_id) WHERE kind = 'charge_correction'`);
    // Connection lines show through their room's line, never as lines of their own.
    await q.query(`DROP TRIGGER ledger_entries_history_insert ON ledger_entries`);
    await q.query(`
      CREATE CONSTRAINT TRIGGER ledger_entries_history_insert AFTER INSERT ON ledger_entries
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
      WHEN (NEW.kind NOT IN ('charge', 'charge_correction')) EXECUTE FUNCTION bump_history_version()`);

    await q.query(`ALTER TABLE rooms ADD COLUMN settles_at timestamptz, ADD COLUMN settled_at timestamptz`);
    // Rooms that ended before this migration have had their room.ended.
    await q.query(`UPDATE rooms SET settles_at = ended_at, settled_at = ended_at WHERE ended_at IS NOT NULL`);
    await q.query(`CREATE INDEX rooms_settling ON rooms (settles_at) WHERE settled_at IS NULL AND settles_at IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX rooms_settling`);
    await q.query(`ALTER TABLE rooms DROP COLUMN settles_at, DROP COLUMN settled_at`);
    await q.query(`DROP TRIGGER ledger_entries_history_insert ON ledger_entries`);
    await q.query(`
      CREATE CONSTRAINT TRIGGER ledger_entries_history_insert AFTER INSERT ON ledger_entries
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
      WHEN (NEW.kind <> 'charge') EXECUTE FUNCTION bump_history_version()`);
    await q.query(`DROP INDEX ledger_entries_corrections`);
    await q.query(`DROP INDEX ledger_entries_one_charge_per_connection`);
    await q.query(`ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_connection_lines`);
    await q.query(`ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_kind_check`);
    // Corrections cannot be expressed before this migration: a database that has them cannot go down.
    await q.query(`ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_connection_id_key UNIQUE (connection_id)`);
    await q.query(`ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_check CHECK ((kind = 'charge') = (connection_id IS NOT NULL))`);
    await q.query(
      `ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_kind_check CHECK (kind IN ('charge', 'purchase', 'grant', 'refund', 'adjustment'))`,
    );
    await q.query(`DROP INDEX inbound_events_unapplied_by_subject`);
    await q.query(`ALTER TABLE inbound_events DROP COLUMN subject`);
  }
}
