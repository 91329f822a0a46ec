// The reconciliation rows of `npm run bench` (BENCH_ONLY=reconcile): what one run of the reconciliation with
// LiveKit costs with BENCH_RECONCILE_ROOMS live rooms (default 10,000), each with two open connections that
// LiveKit lists, against the LiveKit double.
// 1. Steady state: LiveKit lists every room and person; nothing changes (the cost paid every period).
// 2. One room in a hundred gone from LiveKit (a node died): those rooms end and bill their connections.
// The API (with its workers) and the double run in this process, so the times include the double's JSON work:
// an upper bound of the API's share. Prints a markdown table, then one JSON line (read by bench/run.mjs).
import { performance } from 'node:perf_hooks';
import type { Client } from 'pg';
import { LiveKitReconciliationService } from '../apps/api/src/modules/metering/livekit-reconciliation.service';
import { startLiveKitDouble, type LiveKitDouble } from '../apps/api/test/support/livekit-double';
import { percentile, withInProcessApp } from './in-process-app';

const ROOMS = Number(process.env.BENCH_RECONCILE_ROOMS ?? 10_000);
const RUNS = Number(process.env.BENCH_RECONCILE_RUNS ?? 5);
/** A run must end well within the default period (30 s). */
const TARGET_MS = 10_000;

async function main(): Promise<void> {
  const livekit = await startLiveKitDouble();
  try {
    const env = {
      LIVEKIT_API_URL: livekit.url,
      LIVEKIT_API_KEY: livekit.apiKey,
      LIVEKIT_API_SECRET: livekit.apiSecret,
      // The bench runs the job itself.
      LIVEKIT_RECONCILE_SECONDS: '86400',
    };
    await withInProcessApp('reconcile', env, async ({ app, db, organizationId, userId }) => {
      const joinedAt = Date.now() - 5 * 60_000;
      const rooms = (
        await db.query(
          `INSERT INTO rooms (organization_id, name, livekit_name, created_by_user_id, status, streaming_mode, started_at)
           SELECT $1::uuid, 'bench-' || n, $1::text || '.bench-' || n, $2, 'active', 'dual', to_timestamp($4::float8 / 1000)
             FROM generate_series(1, $3::int) AS n RETURNING id, livekit_name`,
          [organizationId, userId, ROOMS, joinedAt],
        )
      ).rows as { id: string; livekit_name: string }[];
      await db.query(
        `INSERT INTO connections (room_id, organization_id, participant_sid, identity, kind, languages, joined_at, cents_per_minute)
         SELECT r.id, $1::uuid, 'PA_' || r.id || '_' || p, 'person-' || p, 'member', ARRAY['en'], to_timestamp($3::float8 / 1000), 3
           FROM unnest($2::uuid[]) AS r(id), generate_series(0, 1) AS p`,
        [organizationId, rooms.map((r) => r.id), joinedAt],
      );
      for (const room of rooms) {
        for (const p of [0, 1])
          livekit.addParticipant(room.livekit_name, { identity: `person-${p}`, sid: `PA_${room.id}_${p}`, joinedAtMs: joinedAt });
      }
      await measureRuns(app.get(LiveKitReconciliationService), livekit, db, rooms);
    });
  } finally {
    await livekit.close();
  }
}

async function measureRuns(
  reconciliation: LiveKitReconciliationService,
  livekit: LiveKitDouble,
  db: Client,
  rooms: { id: string; livekit_name: string }[],
) {
  const measure = async () => {
    livekit.clearCalls();
    const cpu = process.cpuUsage();
    const started = performance.now();
    if (!(await reconciliation.run())) throw new Error('LiveKit did not answer the bench');
    const ms = performance.now() - started;
    const used = process.cpuUsage(cpu);
    return {
      ms,
      cpuMs: (used.user + used.system) / 1000,
      listRooms: livekit.callsOf('ListRooms').length,
      listParticipants: livekit.callsOf('ListParticipants').length,
    };
  };
  await measure(); // warm: the first run marks every room and connection seen
  const steady = [];
  for (let i = 0; i < RUNS; i++) steady.push(await measure());

  const gone = rooms.filter((_, i) => i % 100 === 0);
  for (const room of gone) livekit.removeRoom(room.livekit_name);
  const ending = await measure();
  const [{ ended }] = (
    await db.query(`SELECT count(*)::int AS ended FROM rooms WHERE status = 'ended' AND id = ANY($1::uuid[])`, [gone.map((r) => r.id)])
  ).rows as { ended: number }[];

  const p50 = Math.round(
    percentile(
      steady.map((s) => s.ms),
      50,
    ),
  );
  const max = Math.round(Math.max(...steady.map((s) => s.ms)));
  const cpu = Math.round(
    percentile(
      steady.map((s) => s.cpuMs),
      50,
    ),
  );
  const pass = max <= TARGET_MS && ending.ms <= TARGET_MS && ended === gone.length;
  process.stdout.write(
    `| reconciliation with LiveKit, ${ROOMS} live rooms × 2 connections | measured | target | pass/fail |\n|---|--:|---|---|\n` +
      `| LiveKit calls per run: ListRooms / ListParticipants | ${steady[0].listRooms} / ${steady[0].listParticipants} | 1 / one per room with open connections | ${steady[0].listRooms === 1 && steady[0].listParticipants === ROOMS ? 'pass' : 'FAIL'} |\n` +
      `| a run, nothing changed (${RUNS} runs): p50 / max ms; process CPU p50 ms | ${p50} / ${max}; ${cpu} | ≤ ${TARGET_MS} ms | ${max <= TARGET_MS ? 'pass' : 'FAIL'} |\n` +
      `| a run that ends ${gone.length} rooms LiveKit lost (${ended} ended): ms; CPU ms | ${Math.round(ending.ms)}; ${Math.round(ending.cpuMs)} | ≤ ${TARGET_MS} ms | ${ending.ms <= TARGET_MS && ended === gone.length ? 'pass' : 'FAIL'} |\n\n`,
  );
  process.stdout.write(`${JSON.stringify({ rooms: ROOMS, p50, max, cpu, endingMs: Math.round(ending.ms), ended, pass })}\n`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
