import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { Client } from 'pg';
import { startLiveKitDouble, type LiveKitDouble } from '../support/livekit-double';
import {
  liveKitWebhookRequest,
  participantJoined,
  participantLeft,
  roomFinished,
  type RoomJson,
  type WebhookEventJson,
} from '../support/livekit-webhooks';
import {
  cli,
  migrate,
  startApiProcess,
  startOwnPostgres,
  startOwnRedis,
  type ApiProcess,
  type OwnPostgres,
  type OwnRedis,
} from '../support/own-services';
import { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from '../support/webhook-receiver';

const ROOT = path.resolve(__dirname, '../../../..');
/** A request that gets no answer in this long hangs: the test fails instead of waiting. */
const HANG_MS = 20_000;
/** Stalled jobs of a killed worker are taken up again this soon. */
const LOCK_MS = 1000;
const ROOM_SETTLE_MS = 1000;
/** How long after its join each person leaves (s): started minutes 2, 3, 4, 1, 4, 6. */
const STAYS = [61, 125, 190, 59, 240, 301];
/** The order the leaves are delivered in during a fault (not the order they happened in). */
const FAULT_LEAVE_ORDER = [3, 0, 5, 1, 4, 2];

interface Person {
  identity: string;
  sid: string;
  joinedAt: number;
  leftAt: number;
}

/** A call on a timeline of whole seconds: the room is created, people join and leave, the room finishes after every leave. */
interface Call {
  id: string;
  name: string;
  room: RoomJson;
  people: Person[];
  finishedAt: number;
}

interface Figures {
  status: string;
  ended_at: string;
  total_connection_minutes: number;
  total_charged_cents: number;
  participants: { participant_identity: string; joined_at: string; left_at: string; connection_minutes: number; charged_cents: number }[];
}

/**
 * Issue 25's fault test: LiveKit events of a call arrive while Redis is down or while the worker
 * applying them is killed, on a PostgreSQL, a Redis and API/worker processes of this test's own.
 * Every connection must end up billed to its leave, with exactly the minutes and cents of the same
 * call delivered in order without a fault, charged once, and the room's `room.ended` sent once with
 * those final totals.
 */
describe('metering through a Redis outage and a killed worker, on real processes', () => {
  let postgres: OwnPostgres;
  let redis: OwnRedis;
  let livekit: LiveKitDouble;
  let receiver: WebhookReceiver;
  let api: ApiProcess | null = null;
  let db: Client;
  let auth: Record<string, string>;
  let rate: number;
  const workers: ChildProcess[] = [];
  const databaseUrl = () => postgres.url('trk_metering_faults');
  const baseEnv = (): Record<string, string> => ({
    DATABASE_URL: databaseUrl(),
    REDIS_URL: redis.url,
    LIVEKIT_API_URL: livekit.url,
    LIVEKIT_API_KEY: livekit.apiKey,
    LIVEKIT_API_SECRET: livekit.apiSecret,
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    ROOM_SETTLE_MS: String(ROOM_SETTLE_MS),
    QUEUE_LOCK_DURATION_MS: String(LOCK_MS),
    LOG_LEVEL: 'warn',
  });

  beforeAll(async () => {
    [postgres, redis, livekit, receiver] = await Promise.all([
      startOwnPostgres(),
      startOwnRedis(),
      startLiveKitDouble(),
      startWebhookReceiver(),
    ]);
    migrate(databaseUrl());
    const org = cli(databaseUrl(), 'org:create', '--name', 'Metering faults', '--email', 'ops@metering-faults.test');
    cli(databaseUrl(), 'credit:grant', '--org', org.organization_id as string, '--cents', '100000');
    auth = { Authorization: `Bearer ${org.api_key as string}` };
    db = new Client({ connectionString: databaseUrl() });
    await db.connect();
    api = await startApiProcess(baseEnv());
    const endpoint = await post('/v1/webhook-endpoints', { url: receiver.url, events: ['room.ended'] });
    expect(endpoint.status).toBe(201);
    const credit = await get('/v1/billing/credit');
    rate = (credit.body.rates as { participant_class: string; cents_per_minute: number }[]).find(
      (r) => r.participant_class === 'participant',
    )!.cents_per_minute;
    expect(rate).toBeGreaterThan(0);
  }, 120_000);

  afterAll(async () => {
    // Also after a failed test: no process of ours left running, no lock left held.
    for (const worker of workers) worker.kill('SIGKILL');
    await db?.query('ROLLBACK').catch(() => undefined);
    await db?.end().catch(() => undefined);
    await api?.stop();
    await redis?.kill();
    await postgres?.destroy();
    await livekit?.close();
    await receiver?.close();
  });

  async function call(path: string, init: RequestInit = {}): Promise<{ status: number; body: Record<string, unknown> }> {
    const res = await fetch(`${api!.url}${path}`, { ...init, signal: AbortSignal.timeout(HANG_MS) });
    const text = await res.text();
    return { status: res.status, body: text.startsWith('{') ? (JSON.parse(text) as Record<string, unknown>) : { text } };
  }
  const get = (path: string) => call(path, { headers: auth });
  const post = (path: string, body: object) =>
    call(path, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  /** LiveKit's delivery of one event: its answer's status. */
  async function liveKit(event: WebhookEventJson): Promise<number> {
    const { body, headers } = liveKitWebhookRequest(event, livekit);
    return (await call('/v1/webhooks/livekit', { method: 'POST', headers, body })).status;
  }

  async function query<T>(sql: string, values: unknown[] = []): Promise<T[]> {
    return (await db.query(sql, values)).rows as T[];
  }

  async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 45_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`${what}: not after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  const unapplied = async () =>
    (await query<{ n: number }>(`SELECT count(*)::int AS n FROM inbound_events WHERE processed_at IS NULL`))[0].n;

  /** A room created through the API, its creation moved to just before the call's first join, with tokens for its people. */
  async function newCall(tag: string, t0: number): Promise<Call> {
    const created = await post('/v1/rooms', {});
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const name = created.body.room as string;
    const [{ livekit_name }] = await query<{ livekit_name: string }>(
      `UPDATE rooms SET created_at = to_timestamp($2) WHERE id = $1 RETURNING livekit_name`,
      [id, t0 - 60],
    );
    const people = STAYS.map((stay, i) => ({
      identity: `${tag}-${i}`,
      sid: `PA_${tag}_${i}`,
      joinedAt: t0 + 5 * i,
      leftAt: t0 + 5 * i + stay,
    }));
    for (const { identity } of people) expect((await post(`/v1/rooms/${name}/token`, { identity, languages: ['en'] })).status).toBe(201);
    const room = { name: livekit_name, sid: `RM_${tag}`, creationTimeMs: String((t0 - 60) * 1000) };
    return { id, name, room, people, finishedAt: Math.max(...people.map((p) => p.leftAt)) + 30 };
  }

  const who = (p: Person) => ({ identity: p.identity, sid: p.sid, joinedAt: String(p.joinedAt) });
  const joinOf = (c: Call, p: Person) => participantJoined(c.room, who(p), { createdAt: p.joinedAt });
  const leaveOf = (c: Call, p: Person) => participantLeft(c.room, who(p), { createdAt: p.leftAt });
  const finishOf = (c: Call) => roomFinished(c.room, { createdAt: c.finishedAt });

  async function deliverAll(events: WebhookEventJson[]): Promise<void> {
    for (const event of events) expect({ event: event.event, status: await liveKit(event) }).toEqual({ event: event.event, status: 200 });
  }

  const endedOf = (c: Call) => (all: ReceivedWebhook[]) =>
    all.filter((r) => r.event.type === 'room.ended' && (r.event.data as { id?: string }).id === c.id);

  /** Every stored event applied, the room settled and its room.ended received. */
  async function settled(c: Call): Promise<void> {
    await waitFor('every stored LiveKit event applied', async () => (await unapplied()) === 0);
    await waitFor(
      'the room settled',
      async () => (await query(`SELECT 1 FROM rooms WHERE id = $1 AND settled_at IS NOT NULL`, [c.id])).length === 1,
    );
    await receiver.waitFor((all) => endedOf(c)(all).length > 0, 30_000);
  }

  /** The room's figures as the API shows them. */
  async function figures(c: Call): Promise<Figures> {
    const detail = await get(`/v1/rooms/${c.id}`);
    expect(detail.status).toBe(200);
    const body = detail.body as unknown as Figures;
    return {
      status: body.status,
      ended_at: body.ended_at,
      total_connection_minutes: body.total_connection_minutes,
      total_charged_cents: body.total_charged_cents,
      participants: body.participants
        .map(({ participant_identity, joined_at, left_at, connection_minutes, charged_cents }) => ({
          participant_identity,
          joined_at,
          left_at,
          connection_minutes,
          charged_cents,
        }))
        .sort((a, b) => a.participant_identity.localeCompare(b.participant_identity)),
    };
  }

  /** What the call comes to, worked out here: each connection billed to its leave, by the started minute, at the participant rate. */
  function expected(c: Call): Figures {
    const iso = (seconds: number) => new Date(seconds * 1000).toISOString();
    const participants = c.people.map((p) => {
      const minutes = Math.ceil((p.leftAt - p.joinedAt) / 60);
      return {
        participant_identity: p.identity,
        joined_at: iso(p.joinedAt),
        left_at: iso(p.leftAt),
        connection_minutes: minutes,
        charged_cents: minutes * rate,
      };
    });
    return {
      status: 'ended',
      ended_at: iso(c.finishedAt),
      total_connection_minutes: participants.reduce((sum, p) => sum + p.connection_minutes, 0),
      total_charged_cents: participants.reduce((sum, p) => sum + p.charged_cents, 0),
      participants: participants.sort((a, b) => a.participant_identity.localeCompare(b.participant_identity)),
    };
  }

  async function balance(): Promise<number> {
    const credit = await get('/v1/billing/credit');
    expect(credit.status).toBe(200);
    return credit.body.credit_cents as number;
  }

  /** The same call delivered in order, without a fault: the figures a faulted call must come to. */
  async function inOrderRun(tag: string, t0: number): Promise<Figures> {
    const c = await newCall(tag, t0);
    const byTime = (a: Person, b: Person) => a.leftAt - b.leftAt;
    await deliverAll([...c.people.map((p) => joinOf(c, p)), ...[...c.people].sort(byTime).map((p) => leaveOf(c, p)), finishOf(c)]);
    await settled(c);
    const got = await figures(c);
    expect(got).toEqual(expected(c));
    return got;
  }

  /**
   * Billed once, to the figures of the in-order run: the room's detail, the balance (`balanceAfter`:
   * what it must be once every call of the test is billed) and history,
   * one `charge` line per connection (its corrections, if any, bring it to the connection's charge)
   * and one room.ended carrying the final room.
   */
  async function expectBilledLikeInOrder(c: Call, inOrder: Figures, balanceAfter: number): Promise<void> {
    const got = await figures(c);
    const identityOf = (name: string) => name.replace(/^[^-]+-/, '');
    const comparable = (f: Figures) => ({
      ...f,
      ended_at: undefined,
      participants: f.participants.map((p) => ({
        ...p,
        participant_identity: identityOf(p.participant_identity),
        joined_at: undefined,
        left_at: undefined,
      })),
    });
    expect(got).toEqual(expected(c));
    expect(comparable(got)).toEqual(comparable(inOrder));
    expect(await balance()).toBe(balanceAfter);

    const history = await get('/v1/billing/history?limit=100');
    expect(history.status).toBe(200);
    const lines = (history.body.items as { kind: string; delta_cents: number; room?: { id: string } | null }[]).filter(
      (line) => line.kind === 'room_usage' && line.room?.id === c.id,
    );
    expect(lines.map((line) => line.delta_cents)).toEqual([-inOrder.total_charged_cents]);

    const ledger = await query<{ identity: string; charged_cents: number; charges: number; corrections: number; sum: number }>(
      `SELECT c.identity, c.charged_cents::int,
              count(*) FILTER (WHERE l.kind = 'charge')::int AS charges,
              count(*) FILTER (WHERE l.kind = 'charge_correction')::int AS corrections,
              coalesce(sum(l.delta_cents), 0)::int AS sum
         FROM connections c LEFT JOIN ledger_entries l ON l.connection_id = c.id
        WHERE c.room_id = $1 GROUP BY c.id ORDER BY c.identity`,
      [c.id],
    );
    process.stdout.write(`[metering-faults] ${c.people[0].identity.split('-')[0]} ledger: ${JSON.stringify(ledger)}\n`);
    expect(ledger.map(({ identity, charged_cents, charges, sum }) => ({ identity, charges, sum: -sum, charged_cents }))).toEqual(
      got.participants.map((p) => ({ identity: p.participant_identity, charges: 1, sum: p.charged_cents, charged_cents: p.charged_cents })),
    );
    const others = await query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ledger_entries WHERE room_id = $1 AND kind NOT IN ('charge', 'charge_correction')`,
      [c.id],
    );
    expect(others).toEqual([{ n: 0 }]);

    // room.ended: once, with the final room (as GET /v1/rooms/{id} shows it), never a second time.
    await new Promise((resolve) => setTimeout(resolve, 2 * ROOM_SETTLE_MS + 500));
    const ended = endedOf(c)(receiver.received);
    expect(ended).toHaveLength(1);
    expect(ended[0].event.data).toEqual((await get(`/v1/rooms/${c.id}`)).body);
    const stored = await query<{ n: number }>(
      `SELECT count(*)::int AS n FROM webhook_events WHERE type = 'room.ended' AND body::jsonb->'data'->>'id' = $1`,
      [c.id],
    );
    expect(stored).toEqual([{ n: 1 }]);
  }

  function startWorker(): Promise<ChildProcess> {
    const child = spawn(process.execPath, ['-r', '@swc-node/register', 'apps/api/src/worker.ts'], {
      cwd: ROOT,
      env: { ...process.env, NODE_ENV: 'test', ...baseEnv() },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    workers.push(child);
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    return new Promise((resolve, reject) => {
      child.stdout?.on('data', (chunk: Buffer) => chunk.toString().includes('Queue workers running') && resolve(child));
      child.on('exit', (code) => reject(new Error(`the worker exited early with ${code}:\n${stderr}`)));
    });
  }

  it('bills every connection to its leave, once, when the leaves of two calls arrive while Redis is down', async () => {
    const now = Math.floor(Date.now() / 1000);
    const inOrder = await inOrderRun('inorder', now - 1200);

    // Two calls at once: the leaves left unapplied belong to two rooms, applied together or apart.
    const calls = [await newCall('outage', now - 600), await newCall('outagetwo', now - 600)];
    const before = await balance();
    await deliverAll(calls.flatMap((c) => c.people.map((p) => joinOf(c, p))));
    await waitFor('the joins applied', async () => (await unapplied()) === 0);

    await redis.kill();
    // Stored, so answered 2xx: the sender does not send them again.
    await deliverAll(FAULT_LEAVE_ORDER.flatMap((i) => calls.map((c) => leaveOf(c, c.people[i]))));
    expect(await unapplied()).toBe(2 * FAULT_LEAVE_ORDER.length);
    await redis.start();
    await waitFor('/health/ready answers 200 again', async () => (await call('/health/ready')).status === 200);
    const finished = await Promise.all(calls.map((c) => liveKit(finishOf(c))));
    expect(finished).toEqual([200, 200]);
    for (const c of calls) await settled(c);

    for (const c of calls) await expectBilledLikeInOrder(c, inOrder, before - 2 * inOrder.total_charged_cents);
  }, 120_000);

  it('bills every connection to its leave, once, when the worker is SIGKILLed while applying the leaves, before room_finished', async () => {
    // The API only stores and answers; the queue workers run in a process of their own, which is killed.
    await api!.stop();
    api = null;
    [api] = await Promise.all([startApiProcess({ ...baseEnv(), RUN_QUEUE_WORKERS: 'false' }), startWorker()]);
    const worker = workers[workers.length - 1];
    const now = Math.floor(Date.now() / 1000);
    const inOrder = await inOrderRun('inorderb', now - 1200);

    const c = await newCall('killed', now - 600);
    const before = await balance();
    await deliverAll(c.people.map((p) => joinOf(c, p)));
    await waitFor('the joins applied', async () => (await unapplied()) === 0);

    // The room's lock held here: the worker applying the leaves waits for it, inside its transaction.
    await db.query('BEGIN');
    await db.query(`SELECT 1 FROM rooms WHERE id = $1 FOR UPDATE`, [c.id]);
    await deliverAll(FAULT_LEAVE_ORDER.map((i) => leaveOf(c, c.people[i])));
    await waitFor(
      'the worker waiting for the room',
      async () =>
        (await db.query(`SELECT 1 FROM pg_locks WHERE NOT granted AND pg_backend_pid() = ANY (pg_blocking_pids(pid))`)).rows.length > 0,
      20_000,
    );
    worker.kill('SIGKILL');
    await new Promise((resolve) => (worker.exitCode !== null || worker.signalCode !== null ? resolve(null) : worker.once('exit', resolve)));
    await db.query('ROLLBACK');
    expect(await unapplied()).toBe(FAULT_LEAVE_ORDER.length);

    await deliverAll([finishOf(c)]);
    await startWorker();
    await settled(c);

    await expectBilledLikeInOrder(c, inOrder, before - inOrder.total_charged_cents);
  }, 90_000);
});
