-- The languages a room holds now, sorted: those of its connected people, plus the fresh reservations
-- of join tokens not yet connected (except `p_except_identity`'s own, when given). The TypeScript
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
