import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Rooms1763790000000 implements MigrationInterface {
  name = 'Rooms1763790000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE rooms (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations(id),
        name varchar(128) NOT NULL,
        livekit_name text NOT NULL UNIQUE,
        sid text,
        status text NOT NULL DEFAULT 'created' CHECK (status IN ('created', 'active', 'ended')),
        streaming_mode text CHECK (streaming_mode IN ('mono', 'dual')),
        started_at timestamptz,
        ended_at timestamptz,
        created_by_user_id uuid NOT NULL REFERENCES users(id),
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        total_connection_minutes integer NOT NULL DEFAULT 0,
        total_charged_cents bigint NOT NULL DEFAULT 0,
        translator_present boolean NOT NULL DEFAULT false,
        translator_generation integer NOT NULL DEFAULT 0
      )`);
    // A name is unique among the organization's live rooms only; ended rooms free it.
    await q.query(`CREATE UNIQUE INDEX rooms_live_name ON rooms (organization_id, name) WHERE status <> 'ended'`);
    await q.query(`CREATE INDEX rooms_organization_newest ON rooms (organization_id, created_at DESC, id DESC)`);

    await q.query(`
      CREATE TABLE room_tokens (
        room_id uuid NOT NULL REFERENCES rooms(id),
        identity varchar(128) NOT NULL,
        kind text NOT NULL CHECK (kind IN ('member', 'guest')),
        display_name varchar(128),
        languages text[] NOT NULL,
        issued_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        reserved_until timestamptz,
        PRIMARY KEY (room_id, identity)
      )`);
    await q.query(`CREATE INDEX room_tokens_reserved ON room_tokens (room_id, reserved_until) WHERE reserved_until IS NOT NULL`);

    await q.query(`
      CREATE TABLE connections (
        id bigserial PRIMARY KEY,
        room_id uuid NOT NULL REFERENCES rooms(id),
        organization_id uuid NOT NULL REFERENCES organizations(id),
        participant_sid text NOT NULL,
        identity text NOT NULL,
        kind text CHECK (kind IN ('member', 'guest', 'translator')),
        languages text[],
        joined_at timestamptz NOT NULL,
        left_at timestamptz,
        cents_per_minute integer NOT NULL,
        connection_minutes integer,
        charged_cents bigint,
        UNIQUE (room_id, participant_sid)
      )`);
    await q.query(`CREATE INDEX connections_room ON connections (room_id, joined_at, id)`);
    await q.query(`CREATE INDEX connections_open ON connections (room_id) WHERE left_at IS NULL`);

    await q.query(`
      CREATE TABLE invites (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        room_id uuid NOT NULL REFERENCES rooms(id),
        organization_id uuid NOT NULL REFERENCES organizations(id),
        code_hash bytea NOT NULL UNIQUE,
        expires_at timestamptz NOT NULL,
        max_uses integer NOT NULL CHECK (max_uses BETWEEN 1 AND 100),
        uses integer NOT NULL DEFAULT 0 CHECK (uses <= max_uses),
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await q.query(`CREATE INDEX invites_room ON invites (room_id)`);

    await q.query(`
      CREATE TABLE inbound_events (
        provider text NOT NULL,
        event_id text NOT NULL,
        event_type text NOT NULL,
        payload jsonb NOT NULL,
        received_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        processed_at timestamptz,
        PRIMARY KEY (provider, event_id)
      )`);
    await q.query(`CREATE INDEX inbound_events_unprocessed ON inbound_events (received_at) WHERE processed_at IS NULL`);

    // Jobs decided inside a transaction are written here with it, then enqueued after commit.
    await q.query(`
      CREATE TABLE outbox_jobs (
        id bigserial PRIMARY KEY,
        queue text NOT NULL,
        job_name text NOT NULL,
        job_id text NOT NULL UNIQUE,
        payload jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        enqueued_at timestamptz
      )`);
    await q.query(`CREATE INDEX outbox_jobs_pending ON outbox_jobs (id) WHERE enqueued_at IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE outbox_jobs`);
    await q.query(`DROP TABLE inbound_events`);
    await q.query(`DROP TABLE invites`);
    await q.query(`DROP TABLE connections`);
    await q.query(`DROP TABLE room_tokens`);
    await q.query(`DROP TABLE rooms`);
  }
}
