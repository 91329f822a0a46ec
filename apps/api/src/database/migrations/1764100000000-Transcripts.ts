import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Transcripts (extensions.md): the final segments the translator reports, stored once per room and
 * segment id, at millisecond precision (the precision they are shown and ordered at); the
 * organization's settings; and, per room, when its transcript was closed (`transcript.ready` decided).
 */
export class Transcripts1764100000000 implements MigrationInterface {
  name = 'Transcripts1764100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE transcript_settings (
        organization_id uuid PRIMARY KEY REFERENCES organizations(id),
        store boolean NOT NULL,
        retention_days integer NOT NULL CHECK (retention_days BETWEEN 1 AND 3650),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE transcript_segments (
        id bigserial PRIMARY KEY,
        organization_id uuid NOT NULL REFERENCES organizations(id),
        room_id uuid NOT NULL REFERENCES rooms(id),
        segment_id varchar(200) NOT NULL,
        participant_identity varchar(128) NOT NULL,
        language text NOT NULL,
        text text NOT NULL,
        translation_language text,
        translation_text text,
        started_at timestamptz(3) NOT NULL,
        ended_at timestamptz(3) NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (room_id, segment_id)
      )`);
    // Spoken order within a room; the retention sweep by age.
    await q.query(`CREATE INDEX transcript_segments_spoken ON transcript_segments (room_id, started_at, segment_id)`);
    await q.query(`CREATE INDEX transcript_segments_age ON transcript_segments (started_at)`);
    await q.query(`ALTER TABLE rooms ADD COLUMN transcript_closed_at timestamptz`);
    // Ended rooms whose transcript is still open: the readiness sweep reads only these.
    await q.query(`CREATE INDEX rooms_transcript_open ON rooms (ended_at) WHERE status = 'ended' AND transcript_closed_at IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX rooms_transcript_open`);
    await q.query(`ALTER TABLE rooms DROP COLUMN transcript_closed_at`);
    await q.query(`DROP TABLE transcript_segments`);
    await q.query(`DROP TABLE transcript_settings`);
  }
}
