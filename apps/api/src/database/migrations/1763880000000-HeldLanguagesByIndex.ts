import type { MigrationInterface, QueryRunner } from 'typeorm';
import { SharedTokenAdmission1763830000000 } from './1763830000000-SharedTokenAdmission';

/**
 * The languages a room holds, found through indexes in time independent of how many tokens the room
 * has issued. Before, every admission and invite preview read all of the room's fresh reservations
 * (a room handing out thousands of tokens in two minutes made each token slower than the last).
 *
 * A token carries one or two languages, so each position gets an index ordered by expiry:
 * - whether language l is reserved by someone other than identity x: the two latest fresh
 *   reservations of l (identities are unique per room, so at most one of them is x's);
 * - which languages are reserved at all: a skip scan over the distinct languages ever reserved in
 *   the room (a handful), each checked as above.
 * The test held-languages.spec.ts compares both with reading every row.
 */
export class HeldLanguagesByIndex1763880000000 implements MigrationInterface {
  name = 'HeldLanguagesByIndex1763880000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX room_tokens_reserved`);
    await q.query(
      `CREATE INDEX room_tokens_first_language ON room_tokens (room_id, (languages[1]), reserved_until) WHERE reserved_until IS NOT NULL`,
    );
    await q.query(
      `CREATE INDEX room_tokens_second_language ON room_tokens (room_id, (languages[2]), reserved_until)
        WHERE reserved_until IS NOT NULL AND languages[2] IS NOT NULL`,
    );

    await q.query(`
      CREATE FUNCTION language_reserved(p_room_id uuid, p_language text, p_except_identity text, p_at timestamptz)
      RETURNS boolean LANGUAGE plpgsql STABLE
      -- Only the ordered index scan stops after two rows; any other plan reads every fresh reservation
      -- (the planner picks one when its row estimates are stale, as they are while a room fills up).
      -- plpgsql, not sql: a function with settings is never inlined, and plpgsql keeps its plans.
      SET enable_bitmapscan = off SET enable_seqscan = off SET enable_sort = off
      AS $$
      BEGIN
        RETURN EXISTS (
                 SELECT 1 FROM (SELECT t.identity FROM room_tokens t
                                 WHERE t.room_id = p_room_id AND t.languages[1] = p_language AND t.reserved_until > p_at
                                 ORDER BY t.reserved_until DESC LIMIT 2) latest
                  WHERE latest.identity IS DISTINCT FROM p_except_identity)
            OR EXISTS (
                 SELECT 1 FROM (SELECT t.identity FROM room_tokens t
                                 WHERE t.room_id = p_room_id AND t.languages[2] = p_language AND t.reserved_until > p_at
                                   AND t.languages[2] IS NOT NULL
                                 ORDER BY t.reserved_until DESC LIMIT 2) latest
                  WHERE latest.identity IS DISTINCT FROM p_except_identity);
      END
      $$`);

    await q.query(`
      CREATE FUNCTION reserved_languages(p_room_id uuid, p_except_identity text, p_at timestamptz)
      RETURNS SETOF text LANGUAGE sql STABLE AS $$
        WITH RECURSIVE
          first_position(l) AS (
            SELECT min(t.languages[1]) FROM room_tokens t WHERE t.room_id = p_room_id AND t.reserved_until IS NOT NULL
            UNION ALL
            SELECT (SELECT min(t.languages[1]) FROM room_tokens t
                     WHERE t.room_id = p_room_id AND t.reserved_until IS NOT NULL AND t.languages[1] > first_position.l)
              FROM first_position WHERE first_position.l IS NOT NULL),
          second_position(l) AS (
            SELECT min(t.languages[2]) FROM room_tokens t
             WHERE t.room_id = p_room_id AND t.reserved_until IS NOT NULL AND t.languages[2] IS NOT NULL
            UNION ALL
            SELECT (SELECT min(t.languages[2]) FROM room_tokens t
                     WHERE t.room_id = p_room_id AND t.reserved_until IS NOT NULL AND t.languages[2] IS NOT NULL
                       AND t.languages[2] > second_position.l)
              FROM second_position WHERE second_position.l IS NOT NULL)
        SELECT candidate.l FROM (SELECT l FROM first_position UNION SELECT l FROM second_position) candidate
         WHERE candidate.l IS NOT NULL AND language_reserved(p_room_id, candidate.l, p_except_identity, p_at)
      $$`);

    await q.query(`
      CREATE FUNCTION held_languages(p_room_id uuid, p_except_identity text) RETURNS text[] LANGUAGE plpgsql VOLATILE AS $$
      DECLARE
        -- a plain value, so that reserved_languages is inlined (and its plan kept) rather than planned per call
        checked_at timestamptz := clock_timestamp();
      BEGIN
        RETURN (SELECT coalesce(array_agg(DISTINCT held.l ORDER BY held.l), '{}') FROM (
          SELECT unnest(c.languages) AS l FROM connections c
           WHERE c.room_id = p_room_id AND c.left_at IS NULL AND c.languages IS NOT NULL
          UNION ALL
          SELECT reserved.l FROM reserved_languages(p_room_id, p_except_identity, checked_at) AS reserved(l)
        ) held);
      END
      $$`);

    await q.query(`
      CREATE OR REPLACE FUNCTION admit_token_shared(
        p_organization_id uuid, p_room_name text, p_identity text, p_kind text, p_display_name text,
        p_languages text[], p_reserve_seconds integer)
      RETURNS TABLE (room_id uuid, room_name text, livekit_name text, streaming_mode text, admitted boolean)
      LANGUAGE plpgsql AS $$
      #variable_conflict use_column
      DECLARE
        found_id uuid;
        room rooms%ROWTYPE;
        checked_at timestamptz;
      BEGIN
        SELECT r.id INTO found_id FROM rooms r
         WHERE r.organization_id = p_organization_id AND r.name = p_room_name AND r.status <> 'ended';
        IF found_id IS NULL THEN RETURN; END IF;
        PERFORM pg_advisory_xact_lock_shared(hashtextextended(found_id::text, 0));
        -- read again under the lock: every earlier admission is visible now
        SELECT * INTO room FROM rooms r WHERE r.id = found_id AND r.status <> 'ended';
        IF NOT FOUND THEN RETURN; END IF;
        checked_at := clock_timestamp();
        -- a room whose mode is set keeps it (mono: two languages per token, dual: one)
        IF room.streaming_mode IS NULL
           OR (room.streaming_mode = 'mono') <> (cardinality(p_languages) = 2)
           OR EXISTS (
             SELECT 1 FROM unnest(p_languages) AS l
              WHERE NOT EXISTS (SELECT 1 FROM connections c
                                 WHERE c.room_id = room.id AND c.left_at IS NULL AND c.languages @> ARRAY[l])
                AND NOT language_reserved(room.id, l, p_identity, checked_at)) THEN
          RETURN QUERY SELECT room.id, room.name::text, room.livekit_name, room.streaming_mode, false;
          RETURN;
        END IF;
        INSERT INTO room_tokens (room_id, identity, kind, display_name, languages, reserved_until)
        VALUES (room.id, p_identity, p_kind, p_display_name, p_languages, clock_timestamp() + make_interval(secs => p_reserve_seconds))
        ON CONFLICT (room_id, identity) DO UPDATE SET kind = EXCLUDED.kind, display_name = EXCLUDED.display_name,
          languages = EXCLUDED.languages, issued_at = clock_timestamp(), reserved_until = EXCLUDED.reserved_until;
        RETURN QUERY SELECT room.id, room.name::text, room.livekit_name, room.streaming_mode, true;
      END $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION admit_token_shared(uuid, text, text, text, text, text[], integer)`);
    await new SharedTokenAdmission1763830000000().up(q);
    await q.query(`DROP FUNCTION held_languages(uuid, text)`);
    await q.query(`DROP FUNCTION reserved_languages(uuid, text, timestamptz)`);
    await q.query(`DROP FUNCTION language_reserved(uuid, text, text, timestamptz)`);
    await q.query(`DROP INDEX room_tokens_first_language`);
    await q.query(`DROP INDEX room_tokens_second_language`);
    await q.query(`CREATE INDEX room_tokens_reserved ON room_tokens (room_id, reserved_until) WHERE reserved_until IS NOT NULL`);
  }
}
