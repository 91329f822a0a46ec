import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A counter per organization that moves with every change a billing history page can show, so a
 * page computed at one version can be served again until the next change. Triggers keep it, not
 * the code paths that write: whatever writes a purchase line, a charged room's fields or a closed
 * connection moves it, in the same transaction.
 *
 * The triggers are deferred: the counter is bumped once per organization at commit, after every
 * other row lock the transaction takes, so it adds no lock-order edge and is held only while the
 * transaction commits.
 */
export class HistoryVersions1763870000000 implements MigrationInterface {
  name = 'HistoryVersions1763870000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE history_versions (
        organization_id uuid PRIMARY KEY REFERENCES organizations(id),
        version bigint NOT NULL
      )`);
    // One bump per organization per transaction: the organizations already bumped are listed in a
    // transaction-local setting, which a rolled-back savepoint takes back along with its writes.
    await q.query(`
      CREATE FUNCTION bump_history_version() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        org uuid := CASE WHEN TG_OP = 'DELETE' THEN OLD.organization_id ELSE NEW.organization_id END;
        bumped text := coalesce(current_setting('trk.history_bumped', true), '');
      BEGIN
        IF position(org::text IN bumped) = 0 THEN
          INSERT INTO history_versions (organization_id, version) VALUES (org, 1)
          ON CONFLICT (organization_id) DO UPDATE SET version = history_versions.version + 1;
          PERFORM set_config('trk.history_bumped', bumped || org::text || ' ', true);
        END IF;
        RETURN NULL;
      END $$`);
    const trigger = (name: string, table: string, events: string, when?: string) =>
      q.query(`
        CREATE CONSTRAINT TRIGGER ${name} AFTER ${events} ON ${table}
        DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
        ${when ? `WHEN (${when})` : ''} EXECUTE FUNCTION bump_history_version()`);
    // Purchases and other credit lines (charges show through their room's totals).
    await trigger('ledger_entries_history_insert', 'ledger_entries', 'INSERT', `NEW.kind <> 'charge'`);
    await trigger('ledger_entries_history_change', 'ledger_entries', 'UPDATE OR DELETE');
    // A room's line: its fields under room_usage, and whether it is listed at all.
    await trigger('rooms_history_insert', 'rooms', 'INSERT', `NEW.total_charged_cents <> 0`);
    await trigger(
      'rooms_history_update',
      'rooms',
      'UPDATE',
      `(OLD.organization_id, OLD.name, OLD.streaming_mode, OLD.started_at, OLD.ended_at, OLD.total_connection_minutes, OLD.total_charged_cents)
         IS DISTINCT FROM
       (NEW.organization_id, NEW.name, NEW.streaming_mode, NEW.started_at, NEW.ended_at, NEW.total_connection_minutes, NEW.total_charged_cents)`,
    );
    await trigger('rooms_history_delete', 'rooms', 'DELETE');
    // A room's breakdown: its closed connections.
    await trigger('connections_history_insert', 'connections', 'INSERT', `NEW.left_at IS NOT NULL`);
    await trigger(
      'connections_history_update',
      'connections',
      'UPDATE',
      `(OLD.organization_id, OLD.room_id, OLD.identity, OLD.kind, OLD.languages, OLD.joined_at, OLD.left_at, OLD.connection_minutes, OLD.charged_cents)
         IS DISTINCT FROM
       (NEW.organization_id, NEW.room_id, NEW.identity, NEW.kind, NEW.languages, NEW.joined_at, NEW.left_at, NEW.connection_minutes, NEW.charged_cents)`,
    );
    await trigger('connections_history_delete', 'connections', 'DELETE');
  }

  async down(q: QueryRunner): Promise<void> {
    for (const [name, table] of [
      ['ledger_entries_history_insert', 'ledger_entries'],
      ['ledger_entries_history_change', 'ledger_entries'],
      ['rooms_history_insert', 'rooms'],
      ['rooms_history_update', 'rooms'],
      ['rooms_history_delete', 'rooms'],
      ['connections_history_insert', 'connections'],
      ['connections_history_update', 'connections'],
      ['connections_history_delete', 'connections'],
    ])
      await q.query(`DROP TRIGGER ${name} ON ${table}`);
    await q.query(`DROP FUNCTION bump_history_version()`);
    await q.query(`DROP TABLE history_versions`);
  }
}
