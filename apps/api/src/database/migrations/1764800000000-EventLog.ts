import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every customer event is kept (30 days) and read as a log and a stream: the events by organization and
 * by room, newest first; a notification at commit naming the organizations of the events inserted
 * (one LISTEN per process fans them out); and the single-use tickets `EventSource` opens a stream with.
 */
export class EventLog1764800000000 implements MigrationInterface {
  name = 'EventLog1764800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_events ADD COLUMN room_id uuid`);
    await q.query(`CREATE INDEX webhook_events_log ON webhook_events (organization_id, seq DESC)`);
    await q.query(`CREATE INDEX webhook_events_by_room ON webhook_events (organization_id, room_id, seq DESC) WHERE room_id IS NOT NULL`);
    await q.query(`CREATE INDEX webhook_events_created ON webhook_events (created_at)`);
    await q.query(`CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_seq)`);
    // More than 100 organizations in one statement: an empty payload, read as "every organization".
    await q.query(`
      CREATE FUNCTION notify_customer_events() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE organizations text;
      BEGIN
        SELECT CASE WHEN count(DISTINCT organization_id) > 100 THEN ''
                    ELSE string_agg(DISTINCT organization_id::text, ',') END
          INTO organizations FROM inserted;
        PERFORM pg_notify('customer_events', coalesce(organizations, ''));
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER webhook_events_inserted AFTER INSERT ON webhook_events
        REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION notify_customer_events()`);
    await q.query(`
      CREATE TABLE event_stream_tickets (
        ticket_hash bytea PRIMARY KEY,
        organization_id uuid NOT NULL REFERENCES organizations(id),
        user_id uuid NOT NULL REFERENCES users(id),
        api_key_id uuid REFERENCES api_keys(id),
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        expires_at timestamptz NOT NULL,
        used_at timestamptz
      )`);
    await q.query(`CREATE INDEX event_stream_tickets_expiry ON event_stream_tickets (expires_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE event_stream_tickets`);
    await q.query(`DROP TRIGGER webhook_events_inserted ON webhook_events`);
    await q.query(`DROP FUNCTION notify_customer_events()`);
    await q.query(`DROP INDEX webhook_deliveries_event`);
    await q.query(`DROP INDEX webhook_events_created`);
    await q.query(`DROP INDEX webhook_events_by_room`);
    await q.query(`DROP INDEX webhook_events_log`);
    await q.query(`ALTER TABLE webhook_events DROP COLUMN room_id`);
  }
}
