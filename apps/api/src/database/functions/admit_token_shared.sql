-- The common join token, one that sets no mode and brings no new language, admitted in one
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
