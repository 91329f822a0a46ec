-- The languages reserved at `p_at` by fresh join tokens of the room other than
-- `p_except_identity`'s own: a skip scan over the distinct languages ever reserved in the room (a
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
