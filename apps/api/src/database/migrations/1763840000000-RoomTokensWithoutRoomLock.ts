import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A join token's reservation row no longer checks its room through a foreign key: the check took a
 * key-share lock on the room's row for every token, so concurrent tokens of one room piled up shared
 * row locks (multixacts) on it, and every token waited behind a webhook batch holding that row.
 * Reservations are only ever written by admissions that found the room in the same statement, and
 * rooms are never deleted (they end), so the reference cannot dangle.
 */
export class RoomTokensWithoutRoomLock1763840000000 implements MigrationInterface {
  name = 'RoomTokensWithoutRoomLock1763840000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE room_tokens DROP CONSTRAINT room_tokens_room_id_fkey`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE room_tokens ADD CONSTRAINT room_tokens_room_id_fkey FOREIGN KEY (room_id) REFERENCES rooms(id)`);
  }
}
