import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Reconciliation with LiveKit (docs/decisions.md, "Metering"): when a room or a participant was last
 * seen listed by LiveKit's `ListRooms` / `ListParticipants`. A room LiveKit no longer has ends there,
 * a connection whose participant LiveKit no longer lists ends there. `rooms_live` lets each run read
 * the rooms the product holds live without scanning the ended ones.
 */
export class LiveKitReconciliation1764500000000 implements MigrationInterface {
  name = 'LiveKitReconciliation1764500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE rooms ADD COLUMN livekit_seen_at timestamptz`);
    await q.query(`ALTER TABLE connections ADD COLUMN livekit_seen_at timestamptz`);
    await q.query(`CREATE INDEX rooms_live ON rooms (id) WHERE status <> 'ended'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX rooms_live`);
    await q.query(`ALTER TABLE connections DROP COLUMN livekit_seen_at`);
    await q.query(`ALTER TABLE rooms DROP COLUMN livekit_seen_at`);
  }
}
