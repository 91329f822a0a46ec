-- Whether `p_language` is reserved at `p_at` by a fresh join token of the room other than
-- `p_except_identity`'s own. A token carries one or two languages, so each position has an index
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
