import type { MigrationInterface, QueryRunner } from 'typeorm';

export class TranslationStats1763820000000 implements MigrationInterface {
  name = 'TranslationStats1763820000000';

  async up(q: QueryRunner): Promise<void> {
    // Reports of translator agents; event_key is the queue job id, so a redelivered report is stored once.
    await q.query(`
      CREATE TABLE translation_events (
        id bigserial PRIMARY KEY,
        event_key text NOT NULL UNIQUE,
        organization_id uuid NOT NULL REFERENCES organizations(id),
        room_id uuid NOT NULL REFERENCES rooms(id),
        type text NOT NULL CHECK (type IN ('joined', 'left', 'latency')),
        occurred_at timestamptz NOT NULL,
        direction text,
        p50_ms integer,
        p95_ms integer,
        samples integer,
        audio_seconds double precision,
        created_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((type = 'latency') = (direction IS NOT NULL))
      )`);
    await q.query(`CREATE INDEX translation_events_room ON translation_events (room_id, occurred_at, id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE translation_events`);
  }
}
