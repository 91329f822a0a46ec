// Webhook throughput for `npm run bench`: signed LiveKit events posted concurrently to the built API,
// measured until every one is applied; then the connections are counted (0 lost, 0 doubled).
import autocannon from 'autocannon';
import { Client } from 'pg';
import { participantJoined, participantLeft, liveKitWebhookRequest } from '../apps/api/test/support/livekit-webhooks';

interface Options {
  baseUrl: string;
  apiKey: string;
  databaseUrl: string;
  rooms: number;
  peoplePerRoom: number;
  concurrency: number;
}

async function main(o: Options): Promise<void> {
  const db = new Client({ connectionString: o.databaseUrl });
  await db.connect();
  const creds = { apiKey: process.env.LIVEKIT_API_KEY ?? 'devkey', apiSecret: process.env.LIVEKIT_API_SECRET ?? 'secret' };
  const roomNames: string[] = [];
  const roomIds: string[] = [];
  for (let r = 0; r < o.rooms; r++) {
    const res = await fetch(`${o.baseUrl}/v1/rooms`, {
      method: 'POST',
      headers: { authorization: `Bearer ${o.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ streaming_mode: 'dual' }),
    });
    if (res.status !== 201) throw new Error(`room creation answered ${res.status}: ${await res.text()}`);
    const { id } = (await res.json()) as { id: string };
    const { rows } = await db.query<{ livekit_name: string }>('SELECT livekit_name FROM rooms WHERE id = $1', [id]);
    roomNames.push(rows[0].livekit_name);
    roomIds.push(id);
  }
  const t0 = Math.floor(Date.now() / 1000) - 3600;
  // Many calls at once, as in production: events of different rooms interleave, each room's in order.
  const bodies: { body: string; headers: Record<string, string> }[] = [];
  for (let p = 0; p < o.peoplePerRoom; p++) {
    roomNames.forEach((room, r) => {
      const participant = { identity: `bench-${r}-${p}`, sid: `PA_b${r}_${p}`, joinedAt: String(t0 + p) };
      bodies.push(liveKitWebhookRequest(participantJoined(room, participant, { createdAt: t0 + p }), creds));
    });
  }
  for (let p = 0; p < o.peoplePerRoom; p++) {
    roomNames.forEach((room, r) => {
      const participant = { identity: `bench-${r}-${p}`, sid: `PA_b${r}_${p}`, joinedAt: String(t0 + p) };
      bodies.push(liveKitWebhookRequest(participantLeft(room, participant, { createdAt: t0 + p + 90 }), creds));
    });
  }
  // autocannon's HTTP client: the sender shares this machine's two cores with the API under test,
  // and node:http or fetch() would take several times the CPU per request.
  const target = new URL(`${o.baseUrl}/v1/webhooks/livekit`);
  const started = Date.now();
  let next = 0;
  const run = autocannon({
    url: target.origin,
    connections: Math.min(o.concurrency, bodies.length),
    amount: bodies.length,
    requests: [
      {
        method: 'POST',
        path: target.pathname,
        setupRequest: (request) => {
          const { body, headers } = bodies[next++ % bodies.length];
          return { ...request, body, headers };
        },
      },
    ],
  });
  // autocannon settles only at its next one-second tick after the last answer: the accepting ends
  // with the last answer itself, and waiting for the events to be applied starts there.
  let answered = 0;
  let lastAnswer = 0;
  const allAnswered = new Promise<void>((resolve) => {
    run.on('response', () => {
      lastAnswer = Date.now();
      if (++answered === bodies.length) resolve();
    });
  });
  await Promise.race([allAnswered, run]);
  const accepted = lastAnswer || Date.now();
  for (;;) {
    // EXISTS stops at the first unprocessed event: polling must not load the database it measures.
    const { rows } = await db.query<{ pending: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM inbound_events WHERE processed_at IS NULL) AS pending`,
    );
    if (!rows[0].pending) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const done = Date.now();
  const result = await run;
  const rejected = result.non2xx + result.errors;
  const { rows } = await db.query<{ connections: number; closed: number; charges: number }>(
    `SELECT count(*)::int AS connections, count(left_at)::int AS closed,
            (SELECT count(*)::int FROM ledger_entries WHERE room_id = ANY($1) AND kind = 'charge') AS charges
       FROM connections WHERE room_id = ANY($1)`,
    [roomIds],
  );
  await db.end();
  const expected = o.rooms * o.peoplePerRoom;
  process.stdout.write(
    `${JSON.stringify({
      events: bodies.length,
      rejected,
      acceptedPerSecond: Math.round(bodies.length / ((accepted - started) / 1000)),
      appliedPerSecond: Math.round(bodies.length / ((done - started) / 1000)),
      lost: expected - rows[0].closed,
      doubled: rows[0].connections - expected + (rows[0].charges - rows[0].closed),
    })}\n`,
  );
}

const [baseUrl, apiKey, databaseUrl] = process.argv.slice(2);
void main({
  baseUrl,
  apiKey,
  databaseUrl,
  rooms: Number(process.env.BENCH_WEBHOOK_ROOMS ?? 200),
  peoplePerRoom: Number(process.env.BENCH_WEBHOOK_PEOPLE ?? 25),
  concurrency: Number(process.env.BENCH_WEBHOOK_CONCURRENCY ?? 64),
}).catch((error: Error) => {
  process.stderr.write(`${error.stack ?? error.message}\n`);
  process.exit(1);
});
