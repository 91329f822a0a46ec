// Webhook throughput for `npm run bench`: signed LiveKit events posted concurrently to the built API,
// measured until every one is applied; then the connections are counted (0 lost, 0 doubled).
// With BENCH_CUSTOMER_ENDPOINTS=n, the organization first registers n customer webhook endpoints on
// loopback (the last answering after BENCH_SLOW_ENDPOINT_MS), and each room's room.started delivery
// to the fast ones is timed from the moment its first join was sent. BENCH_WEBHOOK_RATE=n sends n events/s
// (paced, whatever the answers) instead of as fast as the API answers. BENCH_WEBHOOK_DISORDER=f ends
// every room with room_finished (some leaves fall after it), moves a fraction f of the events to a
// random later place and sends another f again (same event id), and reports the minutes and cents
// billed beside what the in-order run bills (computed from the events: each connection to its
// earliest end). BENCH_STREAMS=n opens n event streams (bench/event-streams.ts) before the events are sent
// and reports, for every event on every stream, committed → received, and whether each stream received
// exactly its organization's log. BENCH_ORGANIZATIONS (JSON: [{organization_id, api_key}], made by
// bench/run.mjs) spreads the rooms and the streams over those organizations beside the bench's own.
// BENCH_ENDPOINT_EVENTS=a,b registers the endpoints for those event types only (default: every type, so
// each endpoint also gets every participant.joined and participant.left: 50 times as many as room.started).
import type { Server } from 'node:http';
import { Client } from 'pg';
import { participantJoined, participantLeft, roomFinished, liveKitWebhookRequest } from '../apps/api/test/support/livekit-webhooks';
import { startStreamClients, type StreamClients } from './event-streams';
import { type Body, disorder, percentile, sendAtFullSpeed, sendPaced, type Stage, stage, startReceiver } from './webhook-traffic';

interface Organization {
  organizationId: string;
  apiKey: string;
}

interface Options {
  baseUrl: string;
  apiKey: string;
  databaseUrl: string;
  /** The bench's organization first; rooms and streams are spread over them all. */
  organizations: Organization[];
  /** Event streams open while the events are sent (0: none). */
  streams: number;
  rooms: number;
  peoplePerRoom: number;
  concurrency: number;
  customerEndpoints: number;
  /** The event types the endpoints subscribe to (null: every type). */
  endpointEvents: string[] | null;
  slowEndpointMs: number;
  rate: number;
  disorder: number;
  /** Rooms of an unmeasured run first, in this process (0: none). */
  warmupRooms: number;
}

/**
 * With `warmupRooms`, first an unmeasured run of that many rooms in this process: the burst the row
 * times must not find the bench's own sender and receivers (a new process per row) or the API's and
 * worker's code for a burst that size still being compiled (docs/performance-history.md, 2026-11-27 night).
 */
async function main(o: Options): Promise<void> {
  if (o.warmupRooms > 0) await measure({ ...o, rooms: o.warmupRooms });
  process.stdout.write(`${JSON.stringify(await measure(o))}\n`);
}

async function measure(o: Options): Promise<object> {
  const db = new Client({ connectionString: o.databaseUrl });
  await db.connect();
  const creds = { apiKey: process.env.LIVEKIT_API_KEY ?? 'devkey', apiSecret: process.env.LIVEKIT_API_SECRET ?? 'secret' };
  const arrivals = new Map<string, number[]>();
  const receivers: Server[] = [];
  const endpointIds: string[] = [];
  for (let e = 0; e < o.customerEndpoints; e++) {
    const slow = e === o.customerEndpoints - 1;
    const { url, server } = await startReceiver(slow ? o.slowEndpointMs : 0, arrivals);
    receivers.push(server);
    const res = await fetch(`${o.baseUrl}/v1/webhook-endpoints`, {
      method: 'POST',
      headers: { authorization: `Bearer ${o.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url, description: slow ? 'slow' : 'fast', ...(o.endpointEvents ? { events: o.endpointEvents } : {}) }),
    });
    if (res.status !== 201) throw new Error(`endpoint registration answered ${res.status}: ${await res.text()}`);
    endpointIds.push(((await res.json()) as { id: string }).id);
  }
  const roomNames: string[] = [];
  const roomIds: string[] = [];
  for (let r = 0; r < o.rooms; r++) {
    const res = await fetch(`${o.baseUrl}/v1/rooms`, {
      method: 'POST',
      headers: { authorization: `Bearer ${o.organizations[r % o.organizations.length].apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ streaming_mode: 'dual' }),
    });
    if (res.status !== 201) throw new Error(`room creation answered ${res.status}: ${await res.text()}`);
    const { id } = (await res.json()) as { id: string };
    const { rows } = await db.query<{ livekit_name: string }>('SELECT livekit_name FROM rooms WHERE id = $1', [id]);
    roomNames.push(rows[0].livekit_name);
    roomIds.push(id);
  }
  // With disorder, the calls lie ahead of now, so their room_finished is later than the rooms' creation.
  const t0 = Math.floor(Date.now() / 1000) + (o.disorder > 0 ? 3600 : -3600);
  const leaveOffset = (p: number) => (o.disorder > 0 ? 30 + ((p * 37) % 200) : 90);
  const endOffset = o.peoplePerRoom + 100;
  // Many calls at once, as in production: events of different rooms interleave, each room's in order.
  const bodies: Body[] = [];
  for (let p = 0; p < o.peoplePerRoom; p++) {
    roomNames.forEach((room, r) => {
      const participant = { identity: `bench-${r}-${p}`, sid: `PA_b${r}_${p}`, joinedAt: String(t0 + p) };
      bodies.push(liveKitWebhookRequest(participantJoined(room, participant, { createdAt: t0 + p }), creds));
    });
  }
  for (let p = 0; p < o.peoplePerRoom; p++) {
    roomNames.forEach((room, r) => {
      const participant = { identity: `bench-${r}-${p}`, sid: `PA_b${r}_${p}`, joinedAt: String(t0 + p) };
      bodies.push(liveKitWebhookRequest(participantLeft(room, participant, { createdAt: t0 + p + leaveOffset(p) }), creds));
    });
  }
  let inOrderMinutes: number | null = null;
  if (o.disorder > 0) {
    for (const room of roomNames) bodies.push(liveKitWebhookRequest(roomFinished(room, { createdAt: t0 + endOffset }), creds));
    inOrderMinutes = 0;
    for (let p = 0; p < o.peoplePerRoom; p++) {
      const end = Math.min(p + leaveOffset(p), endOffset);
      inOrderMinutes += o.rooms * Math.max(1, Math.ceil((end - p) / 60));
    }
    disorder(bodies, o.disorder);
  }
  let streams: StreamClients | null = null;
  if (o.streams > 0) {
    const perOrganization = o.streams / o.organizations.length;
    streams = await startStreamClients({
      baseUrl: o.baseUrl,
      databaseUrl: o.databaseUrl,
      organizations: o.organizations.map((organization) => ({ ...organization, streams: perOrganization })),
    });
  }
  const target = new URL(`${o.baseUrl}/v1/webhooks/livekit`);
  const started = Date.now();
  // The first o.rooms bodies are each room's first join: the event that starts it.
  const firstJoinSentAt: number[] = [];
  const onSent = (index: number) => {
    if (index < o.rooms) firstJoinSentAt[index] = Date.now();
  };
  const { lastAnswer, rejected } =
    o.rate > 0 ? await sendPaced(target, bodies, o.rate, onSent) : await sendAtFullSpeed(target, bodies, o.concurrency, onSent);
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
  const streamed = streams ? await streams.finish() : null;
  const { rows } = await db.query<{ connections: number; closed: number; charges: number; minutes: number; cents: number; ledger: number }>(
    `SELECT count(*)::int AS connections, count(left_at)::int AS closed,
            (SELECT count(*)::int FROM ledger_entries WHERE room_id = ANY($1) AND kind = 'charge') AS charges,
            coalesce(sum(connection_minutes), 0)::int AS minutes, coalesce(sum(charged_cents), 0)::int AS cents,
            (SELECT -coalesce(sum(delta_cents), 0)::int FROM ledger_entries WHERE room_id = ANY($1)) AS ledger
       FROM connections WHERE room_id = ANY($1)`,
    [roomIds],
  );
  const rate = o.disorder > 0 ? await participantRate(o) : 0;
  const fast = Math.max(0, o.customerEndpoints - 1);
  let latency: {
    samples: number;
    p50: number | null;
    p95: number | null;
    p99: number | null;
    missing: number;
    outboxP50: number | null;
    outboxP99: number | null;
    stages: Record<string, Stage>;
  } | null = null;
  if (fast > 0) {
    // Every room.started reaches every fast endpoint (the slow one is not waited for).
    const deadline = Date.now() + 30_000;
    while ([...arrivals.values()].reduce((n, times) => n + times.length, 0) < o.rooms * fast && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await new Promise((resolve) => setTimeout(resolve, 500)); // the last 2xx answers get recorded
    // The delivery part alone: from the commit that wrote the event (its row's time) to the 2xx recorded.
    const { rows: outbox } = await db.query<{ p50: number | null; p99: number | null }>(
      `SELECT round(1000 * percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM d.delivered_at - e.created_at)))::int AS p50,
              round(1000 * percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM d.delivered_at - e.created_at)))::int AS p99
         FROM webhook_deliveries d JOIN webhook_events e ON e.seq = d.event_seq JOIN webhook_endpoints w ON w.id = d.endpoint_id
        WHERE d.status = 'delivered' AND w.description = 'fast' AND e.type = 'room.started' AND e.body::jsonb->'data'->>'id' = ANY($1)`,
      [roomIds],
    );
    // Where the time goes, per room: first join sent → stored (answered) → applied (the transaction applying
    // it began: its processed_at is that transaction's now()) → outbox row written (the event row's created_at,
    // the clock when it was inserted, last in that transaction) → received by the slowest fast endpoint.
    const { rows: stages } = await db.query<{ room_id: string; stored: number; applied: number; written: number; delivered: number }>(
      `WITH rooms AS (SELECT id, name, n - 1 AS r FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS r(id, name, n)),
            firsts AS (SELECT rooms.id, i.received_at, i.processed_at FROM rooms
                         JOIN inbound_events i ON i.event_type = 'participant_joined' AND i.subject = rooms.name
                          AND i.payload->'participant'->>'identity' = 'bench-' || rooms.r || '-0'),
            started AS (SELECT e.seq, e.created_at, e.body::jsonb->'data'->>'id' AS room_id FROM webhook_events e WHERE e.type = 'room.started')
       SELECT started.room_id, (extract(epoch FROM firsts.received_at) * 1000)::float8 AS stored,
              (extract(epoch FROM firsts.processed_at) * 1000)::float8 AS applied,
              (extract(epoch FROM started.created_at) * 1000)::float8 AS written,
              (SELECT extract(epoch FROM max(d.delivered_at)) * 1000 FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id
                WHERE d.event_seq = started.seq AND w.description = 'fast')::float8 AS delivered
         FROM started JOIN firsts ON firsts.id = started.room_id`,
      [roomIds, roomNames],
    );
    const sentOf = new Map(roomIds.map((id, r) => [id, firstJoinSentAt[r]]));
    const receivedOf = (id: string) => Math.max(...(arrivals.get(id) ?? [NaN]));
    const stageLatency: Record<string, Stage> = {
      sentToStored: stage(stages.map((s) => s.stored - sentOf.get(s.room_id)!)),
      storedToApplied: stage(stages.map((s) => s.applied - s.stored)),
      appliedToWritten: stage(stages.map((s) => s.written - s.applied)),
      writtenToReceived: stage(stages.map((s) => receivedOf(s.room_id) - s.written)),
      writtenToDelivered: stage(stages.map((s) => s.delivered - s.written)),
    };
    const samples = roomIds.flatMap((id, r) => (arrivals.get(id) ?? []).map((at) => at - firstJoinSentAt[r])).sort((a, b) => a - b);
    latency = {
      samples: samples.length,
      p50: percentile(samples, 50),
      p95: percentile(samples, 95),
      p99: percentile(samples, 99),
      missing: o.rooms * fast - samples.length,
      outboxP50: outbox[0]?.p50 ?? null,
      outboxP99: outbox[0]?.p99 ?? null,
      stages: stageLatency,
    };
  }
  await db.end();
  // The next run of the same organization starts without this run's endpoints (their receivers close now).
  for (const id of endpointIds) {
    const res = await fetch(`${o.baseUrl}/v1/webhook-endpoints/${id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${o.apiKey}` },
    });
    if (res.status !== 204) throw new Error(`endpoint deletion answered ${res.status}: ${await res.text()}`);
  }
  for (const server of receivers) {
    server.closeAllConnections();
    server.close();
  }
  const expected = o.rooms * o.peoplePerRoom;
  return {
    events: bodies.length,
    rejected,
    acceptedPerSecond: Math.round(bodies.length / ((accepted - started) / 1000)),
    appliedPerSecond: Math.round(bodies.length / ((done - started) / 1000)),
    lost: expected - rows[0].closed,
    doubled: rows[0].connections - expected + (rows[0].charges - rows[0].closed),
    customerEndpoints: o.customerEndpoints,
    latency,
    streams: streamed,
    billing:
      inOrderMinutes === null
        ? null
        : {
            minutes: rows[0].minutes,
            inOrderMinutes,
            cents: rows[0].cents,
            inOrderCents: inOrderMinutes * rate,
            ledgerCents: rows[0].ledger,
          },
  };
}

async function participantRate(o: Options): Promise<number> {
  const res = await fetch(`${o.baseUrl}/v1/billing/credit`, { headers: { authorization: `Bearer ${o.apiKey}` } });
  const credit = (await res.json()) as { rates: { participant_class: string; cents_per_minute: number }[] };
  return credit.rates.find((r) => r.participant_class === 'participant')!.cents_per_minute;
}

const [baseUrl, apiKey, databaseUrl, organizationId] = process.argv.slice(2);
const organizations: Organization[] = [
  { organizationId, apiKey },
  ...(JSON.parse(process.env.BENCH_ORGANIZATIONS ?? '[]') as { organization_id: string; api_key: string }[]).map((org) => ({
    organizationId: org.organization_id,
    apiKey: org.api_key,
  })),
];
const streamCount = Number(process.env.BENCH_STREAMS ?? 0);
if (streamCount % organizations.length !== 0)
  throw new Error(`BENCH_STREAMS=${streamCount} is not a multiple of ${organizations.length} organizations`);
if (organizations.length > 1 && Number(process.env.BENCH_CUSTOMER_ENDPOINTS ?? 0) > 0)
  throw new Error('customer endpoints are registered for the bench organization only: BENCH_ORGANIZATIONS spreads rooms without them');
void main({
  baseUrl,
  apiKey,
  databaseUrl,
  organizations,
  streams: streamCount,
  rooms: Number(process.env.BENCH_WEBHOOK_ROOMS ?? 200),
  peoplePerRoom: Number(process.env.BENCH_WEBHOOK_PEOPLE ?? 25),
  concurrency: Number(process.env.BENCH_WEBHOOK_CONCURRENCY ?? 64),
  customerEndpoints: Number(process.env.BENCH_CUSTOMER_ENDPOINTS ?? 0),
  endpointEvents: process.env.BENCH_ENDPOINT_EVENTS ? process.env.BENCH_ENDPOINT_EVENTS.split(',') : null,
  slowEndpointMs: Number(process.env.BENCH_SLOW_ENDPOINT_MS ?? 5000),
  rate: Number(process.env.BENCH_WEBHOOK_RATE ?? 0),
  disorder: Number(process.env.BENCH_WEBHOOK_DISORDER ?? 0),
  warmupRooms: Number(process.env.BENCH_WEBHOOK_WARMUP_ROOMS ?? 0),
}).then(
  // The slow endpoint's answers still pending are not waited for.
  () => process.exit(0),
  (error: Error) => {
    process.stderr.write(`${error.stack ?? error.message}\n`);
    process.exit(1);
  },
);
