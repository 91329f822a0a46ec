// Seeds one organization with a large history straight in SQL: `rooms` ended rooms with `perRoom`
// connections each (one of them the translator), their ledger charges, the balance and the usage
// rollup, spread over the last 90 days. Used by `npm run bench` for the billing and usage rows.
import pg from 'pg';

export async function seedLargeOrganization(
  databaseUrl,
  organizationId,
  { rooms = 100_000, perRoom = 10, rates = { participant: 3, translator: 6 } } = {},
) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const started = Date.now();
  try {
    const [{ id: userId }] = (await client.query(`SELECT id FROM users WHERE organization_id = $1 LIMIT 1`, [organizationId])).rows;
    await client.query('BEGIN');
    // Rooms: one every ~78 s over 90 days, each 1..30 minutes long.
    await client.query(
      `INSERT INTO rooms (id, organization_id, name, livekit_name, sid, status, streaming_mode, started_at, ended_at, created_by_user_id, created_at)
       SELECT gen_random_uuid(), $1::uuid, 'seed-' || g, $1::text || '.seed-' || g, 'RM_seed' || g, 'ended', 'dual',
              now() - interval '90 days' + g * (interval '90 days' / $2::int),
              now() - interval '90 days' + g * (interval '90 days' / $2::int) + ((g % 30) + 1) * interval '1 minute',
              $3, now() - interval '90 days' + g * (interval '90 days' / $2::int)
         FROM generate_series(1, $2::int) g`,
      [organizationId, rooms, userId],
    );
    await client.query(
      `INSERT INTO connections (room_id, organization_id, participant_sid, identity, kind, languages, joined_at, left_at, cents_per_minute, connection_minutes, charged_cents)
       SELECT r.id, r.organization_id, 'PA_' || r.id || '_' || k,
              CASE WHEN k = 0 THEN 'translator' ELSE 'p' || k END,
              CASE WHEN k = 0 THEN 'translator' ELSE 'member' END,
              CASE WHEN k = 0 THEN NULL ELSE ARRAY[CASE WHEN k % 2 = 0 THEN 'en' ELSE 'de' END] END,
              r.started_at, r.ended_at,
              CASE WHEN k = 0 THEN $3::int ELSE $2::int END,
              ceil(extract(epoch FROM r.ended_at - r.started_at) / 60)::int,
              ceil(extract(epoch FROM r.ended_at - r.started_at) / 60)::int * CASE WHEN k = 0 THEN $3::int ELSE $2::int END
         FROM rooms r CROSS JOIN generate_series(0, $4 - 1) k
        WHERE r.organization_id = $1 AND r.name LIKE 'seed-%'`,
      [organizationId, rates.participant, rates.translator, perRoom],
    );
    await client.query(
      `UPDATE rooms r SET total_connection_minutes = s.minutes, total_charged_cents = s.cents
         FROM (SELECT room_id, sum(connection_minutes) AS minutes, sum(charged_cents) AS cents FROM connections WHERE organization_id = $1 GROUP BY room_id) s
        WHERE r.id = s.room_id`,
      [organizationId],
    );
    await client.query(
      `INSERT INTO ledger_entries (organization_id, kind, delta_cents, currency, occurred_at, room_id, connection_id)
       SELECT organization_id, 'charge', -charged_cents, 'usd', left_at, room_id, id FROM connections WHERE organization_id = $1`,
      [organizationId],
    );
    await client.query(
      `INSERT INTO ledger_entries (organization_id, kind, delta_cents, currency, occurred_at, provider_reference)
       SELECT $1, 'purchase', 50000, 'usd', now() - interval '90 days' + g * interval '1 day', 'cs_seed_' || g FROM generate_series(1, 90) g`,
      [organizationId],
    );
    await client.query(
      `INSERT INTO credit_accounts (organization_id, balance_cents, currency)
       SELECT $1, sum(delta_cents), 'usd' FROM ledger_entries WHERE organization_id = $1
       ON CONFLICT (organization_id) DO UPDATE SET balance_cents = EXCLUDED.balance_cents`,
      [organizationId],
    );
    await client.query(
      `INSERT INTO usage_slots (organization_id, slot, minutes, sessions, participants)
       SELECT organization_id, to_timestamp(floor(extract(epoch FROM started_at) / 900) * 900), sum(total_connection_minutes), count(*),
              sum((SELECT count(*) FROM connections c WHERE c.room_id = r.id AND c.kind <> 'translator'))
         FROM rooms r WHERE organization_id = $1 AND started_at IS NOT NULL GROUP BY 1, 2`,
      [organizationId],
    );
    await client.query('COMMIT');
    await client.query('ANALYZE');
    const counts = (
      await client.query(
        `SELECT (SELECT count(*) FROM rooms WHERE organization_id = $1)::int AS rooms, (SELECT count(*) FROM connections WHERE organization_id = $1)::int AS connections`,
        [organizationId],
      )
    ).rows[0];
    return { ...counts, seconds: (Date.now() - started) / 1000 };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    await client.end();
  }
}
