import { Client } from 'pg';
import { startLiveKitDouble, type LiveKitDouble } from '../support/livekit-double';
import { liveKitWebhookRequest, participantJoined, participantLeft, type WebhookEventJson } from '../support/livekit-webhooks';
import { startStripeDouble, type StripeDouble } from '../support/stripe-double';
import { completeSession, signStripeEvent, TEST_WEBHOOK_SECRET } from '../support/stripe-webhooks';
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

/** A request that gets no answer in this long hangs: the test fails instead of waiting (never a speed assertion). */
const HANG_MS = 25_000;

interface Answer {
  what: string;
  status: number;
  retryAfter: string | null;
  body: Record<string, unknown>;
  ms: number;
}

/**
 * The API as its own process on a PostgreSQL and a Redis of this test's own, which the test stops,
 * kills and freezes while requests and webhooks arrive.
 */
describe('outages of PostgreSQL and Redis, on a real API process', () => {
  let postgres: OwnPostgres;
  let redis: OwnRedis;
  let livekit: LiveKitDouble;
  let stripe: StripeDouble;
  let api: ApiProcess;
  let db: Client | null = null;
  let auth: Record<string, string>;
  let organizationId: string;
  const databaseUrl = () => postgres.url('trk_outages');

  beforeAll(async () => {
    [postgres, redis, livekit, stripe] = await Promise.all([
      startOwnPostgres(),
      startOwnRedis(),
      startLiveKitDouble(),
      startStripeDouble(),
    ]);
    migrate(databaseUrl());
    const org = cli(databaseUrl(), 'org:create', '--name', 'Outages', '--email', 'ops@outages.test');
    organizationId = org.organization_id as string;
    cli(databaseUrl(), 'credit:grant', '--org', organizationId, '--cents', '10000');
    auth = { Authorization: `Bearer ${org.api_key as string}` };
    api = await startApiProcess({
      DATABASE_URL: databaseUrl(),
      REDIS_URL: redis.url,
      LIVEKIT_API_URL: livekit.url,
      LIVEKIT_API_KEY: livekit.apiKey,
      LIVEKIT_API_SECRET: livekit.apiSecret,
      STRIPE_SECRET_KEY: 'sk_test_doubles',
      STRIPE_API_URL: stripe.url,
      STRIPE_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
    });
  }, 180_000);

  afterAll(async () => {
    await db?.end().catch(() => undefined);
    await api?.stop();
    await redis?.kill();
    await postgres?.destroy();
    await livekit?.close();
    await stripe?.close();
  });

  async function call(what: string, path: string, init: RequestInit = {}): Promise<Answer> {
    const started = Date.now();
    const res = await fetch(`${api.url}${path}`, { ...init, signal: AbortSignal.timeout(HANG_MS) });
    const text = await res.text();
    return {
      what,
      status: res.status,
      retryAfter: res.headers.get('retry-after'),
      body: text.startsWith('{') ? (JSON.parse(text) as Record<string, unknown>) : { text },
      ms: Date.now() - started,
    };
  }

  const get = (path: string) => call(`GET ${path}`, path, { headers: auth });
  const post = (path: string, body: object) =>
    call(`POST ${path}`, path, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const liveKitWebhook = (event: WebhookEventJson) => {
    const { body, headers } = liveKitWebhookRequest(event, livekit);
    return call(`LiveKit ${event.event}`, '/v1/webhooks/livekit', { method: 'POST', headers, body });
  };
  const stripeWebhook = (event: { id: string; object: 'event' }) => {
    const { body, headers } = signStripeEvent(event);
    return call('Stripe webhook', '/v1/webhooks/stripe', { method: 'POST', headers, body });
  };

  /** A webhook sender (LiveKit, Stripe) delivers again until it gets a 2xx. */
  async function deliver(send: () => Promise<Answer>): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const answer = await send();
      if (answer.status === 200) return;
      if (attempt >= 40) throw new Error(`delivery still answered ${answer.status}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }

  async function waitUntilReady(): Promise<void> {
    const deadline = Date.now() + 60_000;
    while ((await call('ready', '/health/ready')).status !== 200) {
      if (Date.now() > deadline) throw new Error('/health/ready never answered 200 again');
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  async function query<T>(sql: string, values: unknown[] = []): Promise<T[]> {
    if (!db) {
      db = new Client({ connectionString: databaseUrl() });
      await db.connect();
    }
    return (await db.query(sql, values)).rows as T[];
  }

  async function dropDbClient(): Promise<void> {
    await db?.end().catch(() => undefined);
    db = null;
  }

  /** Each answer is a 2xx, or a clear 503. */
  function expectServedOrUnavailable(answers: Answer[]): void {
    for (const answer of answers) {
      if (answer.status !== 503)
        expect({ what: answer.what, status: Math.floor(answer.status / 100) }).toEqual({ what: answer.what, status: 2 });
      else expectServiceUnavailable(answer);
    }
  }

  function expectServiceUnavailable(answer: Answer, component?: string): void {
    expect({ what: answer.what, status: answer.status, retryAfter: answer.retryAfter }).toEqual({
      what: answer.what,
      status: 503,
      retryAfter: expect.stringMatching(/^[1-9]\d*$/),
    });
    expect(answer.body.detail).toEqual(expect.any(String));
    if (component) expect(answer.body.detail).toContain(component);
  }

  /** Shows how long each answer took (not asserted: the point is that every request is answered). */
  function report(outage: string, answers: Answer[]): void {
    const lines = answers.map((a) => `  ${a.status} in ${a.ms} ms: ${a.what}`);
    process.stdout.write(`[outages] ${outage}\n${lines.join('\n')}\n`);
  }

  async function createRoom(): Promise<{ name: string; livekitName: string }> {
    const created = await post('/v1/rooms', {});
    expect(created.status).toBe(201);
    const [{ livekit_name }] = await query<{ livekit_name: string }>(`SELECT livekit_name FROM rooms WHERE id = $1`, [created.body.id]);
    return { name: created.body.room as string, livekitName: livekit_name };
  }

  async function balance(): Promise<number> {
    const credit = await get('/v1/billing/credit');
    expect(credit.status).toBe(200);
    return credit.body.credit_cents as number;
  }

  it('answers 503 or 2xx while Redis is down, recovers without a restart, and applies every accepted event exactly once', async () => {
    const room = await createRoom();
    const people = Array.from({ length: 8 }, (_, i) => `person-${i}`);
    for (const identity of people) expect((await post(`/v1/rooms/${room.name}/token`, { identity, languages: ['en'] })).status).toBe(201);
    const payments: ReturnType<typeof completeSession>[] = [];
    for (let i = 0; i < 3; i++) {
      const checkout = await post('/v1/billing/checkout', { amount_cents: 1000 });
      expect(checkout.status).toBe(201);
      payments.push(completeSession(stripe, checkout.body.checkout_id as string, { paid: true }));
    }
    const before = await balance();
    const t0 = Math.floor(Date.now() / 1000) - 300;
    const joins = people.map((identity) => participantJoined(room.livekitName, { identity, sid: `PA_${identity}`, joinedAt: String(t0) }));
    const leaves = people.map((identity) =>
      participantLeft(room.livekitName, { identity, sid: `PA_${identity}`, joinedAt: String(t0) }, { createdAt: t0 + 150 }),
    );

    await redis.kill();
    const during = await Promise.all([
      ...joins.map((event) => liveKitWebhook(event)),
      ...payments.map((event) => stripeWebhook(event)),
      get('/v1/users/me'),
      get('/v1/rooms'),
      post(`/v1/rooms/${room.name}/token`, { identity: 'late', languages: ['en'] }),
      post('/v1/rooms', {}),
    ]);
    const ready = await call('ready', '/health/ready');
    report('Redis killed', [...during, ready]);
    expectServedOrUnavailable(during);
    expectServiceUnavailable(ready, 'redis');
    expect(ready.body.error).toEqual({ redis: { status: 'down', error: expect.any(String) } });

    await redis.start();
    await waitUntilReady();
    // Deliveries answered 503 come again, as their senders would send them; then the leaves.
    for (const [i, answer] of during.entries()) {
      if (answer.status !== 503) continue;
      if (i < joins.length) await deliver(() => liveKitWebhook(joins[i]));
      else if (i < joins.length + payments.length) await deliver(() => stripeWebhook(payments[i - joins.length]));
    }
    for (const event of leaves) await deliver(() => liveKitWebhook(event));
    expect((await post('/v1/rooms', {})).status).toBe(201);

    // Applied: every stored event processed (events stored while Redis was away are enqueued again by the sweep).
    const deadline = Date.now() + 90_000;
    for (;;) {
      const [{ n }] = await query<{ n: number }>(`SELECT count(*)::int AS n FROM inbound_events WHERE processed_at IS NULL`);
      if (n === 0) break;
      if (Date.now() > deadline) throw new Error(`${n} stored webhook events were never applied`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    // Exactly once: one closed connection of 3 minutes per person, each payment credited once.
    const connections = await query<{ identity: string; connection_minutes: number; charged_cents: number }>(
      `SELECT identity, connection_minutes, charged_cents::int FROM connections WHERE organization_id = $1 ORDER BY identity`,
      [organizationId],
    );
    expect(connections).toEqual(people.map((identity) => ({ identity, connection_minutes: 3, charged_cents: 9 })));
    expect(await balance()).toBe(before + 3 * 1000 - people.length * 9);
  }, 240_000);

  it('answers 2xx or 503 rather than hanging while Redis is frozen, and applies the accepted events once it runs again', async () => {
    const room = await createRoom();
    const t0 = Math.floor(Date.now() / 1000) - 300;
    const person = { identity: 'frozen-redis', sid: 'PA_frozen_redis', joinedAt: String(t0) };
    const join = participantJoined(room.livekitName, person);
    const leave = participantLeft(room.livekitName, person, { createdAt: t0 + 150 });
    const before = await balance();
    redis.freeze();
    let during: Answer[];
    let ready: Answer;
    try {
      during = await Promise.all([
        liveKitWebhook(join),
        get('/v1/users/me'),
        post(`/v1/rooms/${room.name}/token`, { identity: 'x', languages: ['en'] }),
      ]);
      ready = await call('ready', '/health/ready');
    } finally {
      redis.thaw();
    }
    report('Redis frozen (SIGSTOP)', [...during, ready]);
    expectServedOrUnavailable(during);
    expectServiceUnavailable(ready, 'redis');

    await waitUntilReady();
    if (during[0].status === 503) await deliver(() => liveKitWebhook(join));
    await deliver(() => liveKitWebhook(leave));
    const deadline = Date.now() + 90_000;
    while ((await balance()) !== before - 9) {
      if (Date.now() > deadline) throw new Error('the call was never charged');
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const rows = await query<{ n: number }>(`SELECT count(*)::int AS n FROM connections WHERE participant_sid = $1`, [person.sid]);
    expect(rows).toEqual([{ n: 1 }]);
  }, 150_000);

  it('answers 503 with Retry-After while PostgreSQL is stopped, names it in /health/ready, and recovers without a restart', async () => {
    const room = await createRoom();
    await dropDbClient();
    await postgres.stop();
    const during = await Promise.all([
      get('/v1/users/me'),
      get('/v1/rooms'),
      post('/v1/rooms', {}),
      post(`/v1/rooms/${room.name}/token`, { identity: 'ann', languages: ['en'] }),
      liveKitWebhook(participantJoined(room.livekitName, 'ann')),
      stripeWebhook({ id: 'evt_while_postgres_stopped', object: 'event', type: 'customer.created' } as { id: string; object: 'event' }),
    ]);
    const ready = await call('ready', '/health/ready');
    report('PostgreSQL stopped', [...during, ready]);
    for (const answer of during) expectServiceUnavailable(answer);
    expectServiceUnavailable(ready, 'postgres');
    expect(ready.body.error).toEqual({ postgres: { status: 'down', error: expect.any(String) } });

    await postgres.start();
    await waitUntilReady();
    expect((await get('/v1/users/me')).status).toBe(200);
    expect((await post(`/v1/rooms/${room.name}/token`, { identity: 'ann', languages: ['en'] })).status).toBe(201);
    expect((await liveKitWebhook(participantJoined(room.livekitName, 'ann'))).status).toBe(200);
  }, 120_000);

  it('answers 503 rather than hanging while PostgreSQL is frozen, and recovers once it runs again', async () => {
    const room = await createRoom();
    await dropDbClient();
    postgres.freeze();
    let during: Answer[];
    let ready: Answer;
    try {
      during = await Promise.all([
        get('/v1/users/me'),
        post('/v1/rooms', {}),
        post(`/v1/rooms/${room.name}/token`, { identity: 'bob', languages: ['en'] }),
        liveKitWebhook(participantJoined(room.livekitName, 'bob')),
        stripeWebhook({ id: 'evt_while_postgres_frozen', object: 'event', type: 'customer.created' } as { id: string; object: 'event' }),
      ]);
      ready = await call('ready', '/health/ready');
    } finally {
      postgres.thaw();
    }
    report('PostgreSQL frozen (SIGSTOP)', [...during, ready]);
    for (const answer of during) expectServiceUnavailable(answer);
    expectServiceUnavailable(ready, 'postgres');

    await waitUntilReady();
    expect((await get('/v1/users/me')).status).toBe(200);
    expect((await liveKitWebhook(participantJoined(room.livekitName, 'bob'))).status).toBe(200);
  }, 120_000);
});
