-- Shared token admissions (admit_token_shared) for many requests in one statement and one
-- transaction. The requests go in (organization, room name) order, so batches that meet take their
-- rooms' shared locks in one order. `ord` ties each answer to its request; a request whose room is
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
