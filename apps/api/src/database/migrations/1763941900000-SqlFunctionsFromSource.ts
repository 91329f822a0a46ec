import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The token admission functions (admit_tokens_shared, admit_token_shared) and the held-language
 * functions they use, as `database/functions/*.sql` held them when this migration landed: those
 * files are the readable source of each function's current definition, and a test holds them equal
 * to the text of the latest migration defining each (migrations.spec.ts). The text is inline, so what
 * this migration runs never changes with the files (it read them from disk until it was made so).
 *
 * The definitions are those HeldLanguagesByIndex and BatchedTokenAdmission left, with one change to
 * admit_token_shared found by comparing it with the rule of libs/domain: a token whose number of
 * languages is neither 1 nor 2 is never admitted (it was, into a dual room, with 0 or 3 languages
 * all held). Requests never send such a token (422 first), so nothing the API answers changes.
 * down() puts back the five texts those two migrations ran, verbatim.
 */

/** In the order they can be created: each calls only those before it. */
const DEFINED = [
  // language_reserved
  `-- Whether \`p_language\` is reserved at \`p_at\` by a fresh join token of the room other than
-- \`p_except_identity\`'s own. A token carries one or two languages, so each position has an index
-- ordered by expiry (room_tokens_first_language, room_tokens_second_language): the two latest fresh
-- reservations of the language answer it, as identities are unique per room (at most one of the two
-- is the excepted one).
CREATE OR REPLACE FUNCTION language_reserved(p_room_id uuid, p_language text, p_except_identity text, p_at timestamptz)
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
$$;
`,
  // reserved_languages
  `-- The languages reserved at \`p_at\` by fresh join tokens of the room other than
-- \`p_except_identity\`'s own: a skip scan over the distinct languages ever reserved in the room (a
-- handful), each checked with language_reserved.
CREATE OR REPLACE FUNCTION reserved_languages(p_room_id uuid, p_except_identity text, p_at timestamptz)
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
$$;
`,
  // held_languages
  `-- The languages a room holds now, sorted: those of its connected people, plus the fresh reservations
-- of join tokens not yet connected (except \`p_except_identity\`'s own, when given). The TypeScript
-- side of the same rule is heldLanguages in libs/domain (test token-admission-rule.spec.ts).
CREATE OR REPLACE FUNCTION held_languages(p_room_id uuid, p_except_identity text) RETURNS text[] LANGUAGE plpgsql VOLATILE AS $$
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
$$;
`,
  // admit_token_shared
  `-- The common join token, one that sets no mode and brings no new language, admitted in one
-- statement: the room's shared admission lock, the check and the reservation, without the round
-- trips of a client-side transaction. Any other token answers admitted = false, and the API decides
-- it under the exclusive lock with the rule of libs/domain (admitToken). This function admits
-- exactly the tokens that rule admits as changing nothing (test token-admission-rule.spec.ts).
-- A room that is not live (or not the organization's) answers no row.
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
  -- a room whose mode is set keeps it (mono: two languages per token, dual: one); a room without
  -- one gets it from an exclusive admission
  IF room.streaming_mode IS NULL
     OR coalesce(cardinality(p_languages), 0) <> (CASE room.streaming_mode WHEN 'mono' THEN 2 ELSE 1 END)
     -- every language must be held already: by a connected person or another token's fresh reservation
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
END
$$;
`,
  // admit_tokens_shared
  `-- Shared token admissions (admit_token_shared) for many requests in one statement and one
-- transaction. The requests go in (organization, room name) order, so batches that meet take their
-- rooms' shared locks in one order. \`ord\` ties each answer to its request; a request whose room is
-- not live has no answer row.
CREATE OR REPLACE FUNCTION admit_tokens_shared(p_requests jsonb, p_reserve_seconds integer)
RETURNS TABLE (ord integer, room_id uuid, room_name text, livekit_name text, streaming_mode text, admitted boolean)
LANGUAGE plpgsql AS $$
DECLARE
  request record;
BEGIN
  FOR request IN
    SELECT * FROM jsonb_to_recordset(p_requests)
      AS r(ord integer, organization_id uuid, room_name text, identity text, kind text, display_name text, languages text[])
     ORDER BY r.organization_id, r.room_name, r.ord
  LOOP
    RETURN QUERY SELECT request.ord, a.* FROM admit_token_shared(
      request.organization_id, request.room_name, request.identity, request.kind, request.display_name,
      request.languages, p_reserve_seconds) a;
  END LOOP;
END
$$;
`,
];

/** What DEFINED replaced: the texts of HeldLanguagesByIndex and BatchedTokenAdmission, as CREATE OR REPLACE. */
const REPLACED = [
  // language_reserved
  `
      CREATE OR REPLACE FUNCTION language_reserved(p_room_id uuid, p_language text, p_except_identity text, p_at timestamptz)
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
      $$`,
  // reserved_languages
  `
      CREATE OR REPLACE FUNCTION reserved_languages(p_room_id uuid, p_except_identity text, p_at timestamptz)
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
      $$`,
  // held_languages
  `
      CREATE OR REPLACE FUNCTION held_languages(p_room_id uuid, p_except_identity text) RETURNS text[] LANGUAGE plpgsql VOLATILE AS $$
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
      $$`,
  // admit_token_shared
  `
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
      END $$`,
  // admit_tokens_shared
  `
      CREATE OR REPLACE FUNCTION admit_tokens_shared(p_requests jsonb, p_reserve_seconds integer)
      RETURNS TABLE (ord integer, room_id uuid, room_name text, livekit_name text, streaming_mode text, admitted boolean)
      LANGUAGE plpgsql AS $$
      DECLARE
        request record;
      BEGIN
        FOR request IN
          SELECT * FROM jsonb_to_recordset(p_requests)
            AS r(ord integer, organization_id uuid, room_name text, identity text, kind text, display_name text, languages text[])
           ORDER BY r.organization_id, r.room_name, r.ord
        LOOP
          RETURN QUERY SELECT request.ord, a.* FROM admit_token_shared(
            request.organization_id, request.room_name, request.identity, request.kind, request.display_name,
            request.languages, p_reserve_seconds) a;
        END LOOP;
      END $$`,
];

export class SqlFunctionsFromSource1763941900000 implements MigrationInterface {
  name = 'SqlFunctionsFromSource1763941900000';

  async up(q: QueryRunner): Promise<void> {
    for (const statement of DEFINED) await q.query(statement);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const statement of REPLACED) await q.query(statement);
  }
}
