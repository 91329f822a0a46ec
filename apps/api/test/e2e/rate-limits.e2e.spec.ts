import { randomBytes, randomUUID } from 'node:crypto';
import { createOrganization, createTeammate } from '../support/factories';
import { createRoom, events, startRoomsHarness, webhook, type RoomsHarness } from '../support/rooms-harness';
import { signStripePayload, TEST_WEBHOOK_SECRET } from '../support/stripe-webhooks';
import { startTestApp, startTestAppOn, type TestApp } from '../support/test-app';
import { blockSizeFor } from '../../src/common/rate-limiting/rate-limits.service';

const LIMITS = {
  RATE_LIMIT_WINDOW_SECONDS: '60',
  RATE_LIMIT_PER_CREDENTIAL: '5',
  RATE_LIMIT_PER_ADDRESS: '4',
  RATE_LIMIT_FAILED_AUTH_PER_ADDRESS: '3',
  // Each test speaks from addresses of its own, given the way a proxy in front of the API would.
  TRUST_PROXY_HOPS: '1',
  METRICS_TOKEN: 'metrics-token-for-tests',
  STRIPE_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
};

/**
 * A client address no other test uses: 48 random bits in IPv6's documentation prefix (never routed).
 * 256 addresses were too few: two tests of one run met on one address now and then.
 */
const newAddress = () =>
  `2001:db8::${randomBytes(6)
    .toString('hex')
    .replace(/(.{4})(?!$)/g, '$1:')}`;
const WRONG_KEY = { Authorization: `Bearer trk_${'x'.repeat(40)}` };

describe('rate limits', () => {
  let h: RoomsHarness;
  beforeAll(async () => {
    h = await startRoomsHarness(LIMITS);
  });
  afterAll(async () => h.close());

  const me = (auth: { Authorization: string }, address = newAddress()) =>
    h.t.http().get('/v1/users/me').set(auth).set('X-Forwarded-For', address);

  function expectLimitHeaders(res: { headers: Record<string, string> }, budget: string, quota: number, remaining: number) {
    expect(res.headers['ratelimit-policy']).toBe(`"${budget}";q=${quota};w=60`);
    expect(res.headers.ratelimit).toMatch(new RegExp(`^"${budget}";r=${remaining};t=\\d+$`));
  }

  it('answers 429 with Retry-After and RateLimit headers once a key has spent its budget; another key has its own', async () => {
    const org = await createOrganization(h.t);
    const mate = await createTeammate(h.t, org);
    for (let i = 0; i < 5; i++) {
      const res = await me(org.auth);
      expect(res.status).toBe(200);
      expectLimitHeaders(res, 'credential', 5, 4 - i);
    }
    const over = await me(org.auth);
    expect(over.status).toBe(429);
    expect(over.body).toEqual({ detail: expect.stringContaining('Too many requests') });
    const retryAfter = Number(over.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expectLimitHeaders(over, 'credential', 5, 0);
    // From another address the key is still over: the budget is the key's, not the address's.
    expect((await me(org.auth)).status).toBe(429);
    // A teammate's key of the same organization has a budget of its own.
    const mates = await me(mate.auth);
    expect(mates.status).toBe(200);
    expectLimitHeaders(mates, 'credential', 5, 4);
  });

  it('limits the routes without authentication per client address, and keeps addresses apart', async () => {
    const address = newAddress();
    const forged = `${'A'.repeat(22)}.${'B'.repeat(43)}`;
    const preview = (from: string) => h.t.http().get(`/v1/invites/${forged}`).set('X-Forwarded-For', from);
    for (let i = 0; i < 4; i++) {
      const res = await preview(address);
      expect(res.status).toBe(404);
      expectLimitHeaders(res, 'address', 4, 3 - i);
    }
    const over = await h.t
      .http()
      .post(`/v1/invites/${forged}/join`)
      .set('X-Forwarded-For', address)
      .send({ languages: ['en'] });
    expect(over.status).toBe(429);
    expect(over.headers['retry-after']).toMatch(/^\d+$/);
    expectLimitHeaders(over, 'address', 4, 0);
    expect((await preview(newAddress())).status).toBe(404);
  });

  const scrape = (token: string | null, address: string) => {
    const req = h.t.http().get('/metrics').set('X-Forwarded-For', address);
    return token === null ? req : req.set('Authorization', `Bearer ${token}`);
  };
  const liveKitDelivery = (roomName: string, address: string) =>
    webhook(h, events.participantJoined(roomName, { identity: `p-${randomUUID()}`, sid: `PA_${randomUUID()}` })).set(
      'X-Forwarded-For',
      address,
    );
  const stripeDelivery = (address: string) => {
    const signed = signStripePayload(JSON.stringify({ id: `evt_${randomUUID()}`, object: 'event', type: 'ping.for_tests', data: {} }));
    return h.t.http().post('/v1/webhooks/stripe').set(signed.headers).set('X-Forwarded-For', address).send(signed.body);
  };
  const unsigned = (path: string, address: string) =>
    h.t.http().post(path).set('X-Forwarded-For', address).set('Content-Type', 'application/json').send('{}');

  /**
   * Every valid credential from the address goes through: an API key, the metrics token, both signed
   * webhooks. (The metrics token's own budget, 5 a window, is shared by this file's tests.)
   */
  async function expectValidCredentialsAccepted(address: string) {
    const org = await createOrganization(h.t);
    const mine = await me(org.auth, address);
    expect(mine.status).toBe(200);
    expectLimitHeaders(mine, 'credential', 5, 4);
    const room = await createRoom(h, org);
    const metrics = await scrape(LIMITS.METRICS_TOKEN, address);
    expect(metrics.status).toBe(200);
    expect(metrics.headers['ratelimit-policy']).toBe('"credential";q=5;w=60');
    expect((await liveKitDelivery(room.livekitName, address)).status).toBe(200);
    expect((await stripeDelivery(address)).status).toBe(200);
  }

  it('refuses the failed authentications of an address over its budget, never a valid credential from it', async () => {
    const address = newAddress();
    for (let i = 0; i < 3; i++) {
      const res = await me(WRONG_KEY, address);
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer');
      expectLimitHeaders(res, 'failed-auth', 3, 2 - i);
    }
    const fourth = await me({ Authorization: `Bearer trk_${'y'.repeat(40)}` }, address);
    expect(fourth.status).toBe(429);
    expect(fourth.headers['retry-after']).toMatch(/^\d+$/);
    expectLimitHeaders(fourth, 'failed-auth', 3, 0);
    // Valid credentials from the address are answered as from any other (behind a NAT, the attacker's
    // neighbours are the customer and LiveKit)...
    await expectValidCredentialsAccepted(address);
    // ...while its failures stay refused for the rest of the window: wrong keys, wrong metrics tokens,
    // and requests with no credential at all.
    expect((await me(WRONG_KEY, address)).status).toBe(429);
    expect((await scrape('wrong', address)).status).toBe(429);
    expect((await h.t.http().get('/v1/users/me').set('X-Forwarded-For', address)).status).toBe(429);
    // Another address's failures are its own.
    expect((await me(WRONG_KEY, newAddress())).status).toBe(401);
  });

  it('counts wrong metrics tokens as failed authentications of the address', async () => {
    const address = newAddress();
    for (let i = 0; i < 3; i++) {
      const res = await scrape(i === 0 ? null : `wrong-${i}`, address);
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer');
      expectLimitHeaders(res, 'failed-auth', 3, 2 - i);
    }
    const fourth = await scrape('wrong-3', address);
    expect(fourth.status).toBe(429);
    expect(fourth.headers['retry-after']).toMatch(/^\d+$/);
    // One budget for the API's bearer credentials: a wrong API key from the address is refused too...
    expect((await me(WRONG_KEY, address)).status).toBe(429);
    // ...but not the right token, nor any other valid credential.
    await expectValidCredentialsAccepted(address);
  });

  it('after 31 bad webhook signatures from an address, accepts its valid API key, metrics token and signed webhooks', async () => {
    const address = newAddress();
    const answers: number[] = [];
    for (let i = 0; i < 31; i++) answers.push((await unsigned('/v1/webhooks/livekit', address)).status);
    expect(answers.slice(0, 3)).toEqual([401, 401, 401]);
    expect(new Set(answers.slice(3))).toEqual(new Set([429]));
    await expectValidCredentialsAccepted(address);
    // Unsigned deliveries to that route stay refused.
    const again = await unsigned('/v1/webhooks/livekit', address);
    expect(again.status).toBe(429);
    expect(again.headers['retry-after']).toMatch(/^\d+$/);
    // Failed signatures have a budget per route, apart from the API's: Stripe's and the API keys' are untouched.
    const stripe = await unsigned('/v1/webhooks/stripe', address);
    expect(stripe.status).toBe(400);
    expectLimitHeaders(stripe, 'failed-auth', 3, 2);
    const wrongKey = await me(WRONG_KEY, address);
    expect(wrongKey.status).toBe(401);
    expectLimitHeaders(wrongKey, 'failed-auth', 3, 2);
    // Failures there are still limited, each in its own budget.
    for (let i = 0; i < 2; i++) expect((await me(WRONG_KEY, address)).status).toBe(401);
    expect((await me(WRONG_KEY, address)).status).toBe(429);
    expect((await h.t.http().get('/v1/users/me').set('X-Forwarded-For', address)).status).toBe(429);
    for (let i = 0; i < 2; i++) expect((await unsigned('/v1/webhooks/stripe', address)).status).toBe(400);
    expect((await unsigned('/v1/webhooks/stripe', address)).status).toBe(429);
    await expectValidCredentialsAccepted(address);
  });

  it('never limits signed webhooks', async () => {
    const org = await createOrganization(h.t);
    const room = await createRoom(h, org);
    for (let i = 0; i < 8; i++) {
      await webhook(h, events.participantJoined(room.livekitName, { identity: `p${i}`, sid: `PA_${i}` })).expect(200);
    }
  });

  it('holds a budget across API processes (in Redis)', async () => {
    const second: TestApp = await startTestAppOn(h.t.config.databaseUrl, { ...LIMITS, QUEUE_PREFIX: h.t.config.queuePrefix });
    try {
      const org = await createOrganization(h.t);
      for (const app of [h.t, second, h.t, second, h.t]) {
        expect((await app.http().get('/v1/users/me').set(org.auth)).status).toBe(200);
      }
      expect((await second.http().get('/v1/users/me').set(org.auth)).status).toBe(429);
    } finally {
      await second.close();
    }
  });
});

describe('a budget reserved in blocks by two API processes', () => {
  const QUOTA = 200;
  const BLOCK = blockSizeFor(QUOTA);
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    const env = { RATE_LIMIT_WINDOW_SECONDS: '60', RATE_LIMIT_PER_CREDENTIAL: String(QUOTA) };
    a = await startTestApp(env);
    b = await startTestAppOn(a.config.databaseUrl, { ...env, QUEUE_PREFIX: a.config.queuePrefix });
  });
  afterAll(async () => {
    await b.close();
    await a.close();
  });

  const remainingOf = (res: { headers: Record<string, string> }) => Number(/;r=(\d+);/.exec(res.headers.ratelimit)?.[1]);

  it('counts every request exactly in one process, across block boundaries', async () => {
    expect(BLOCK).toBeGreaterThan(1);
    const org = await createOrganization(a);
    for (let i = 0; i < 2 * BLOCK + 1; i++) {
      const res = await a.http().get('/v1/users/me').set(org.auth);
      expect(res.status).toBe(200);
      expect(res.headers['ratelimit-policy']).toBe(`"credential";q=${QUOTA};w=60`);
      expect(remainingOf(res)).toBe(QUOTA - 1 - i);
    }
  });

  it('admits between quota − (block − 1) and quota requests to bursts spanning blocks in both, then refuses in both', async () => {
    const org = await createOrganization(a);
    const answers: { status: number; headers: Record<string, string> }[] = [];
    const refusing = new Set<TestApp>();
    while (refusing.size < 2 && answers.length < 3 * QUOTA) {
      for (const app of [a, b]) {
        // more concurrent requests than one block holds: the burst needs a second reservation
        const burst = await Promise.all(Array.from({ length: BLOCK + 2 }, () => app.http().get('/v1/users/me').set(org.auth)));
        answers.push(...burst);
        if (burst.some((res) => res.status === 429)) refusing.add(app);
      }
    }
    const admitted = answers.filter((res) => res.status === 200);
    expect(admitted.length).toBeLessThanOrEqual(QUOTA);
    expect(admitted.length).toBeGreaterThanOrEqual(QUOTA - (BLOCK - 1));
    for (const res of admitted) expect(remainingOf(res)).toBeLessThan(QUOTA);
    for (const res of answers.filter((r) => r.status !== 200)) {
      expect(res.status).toBe(429);
      expect(res.headers.ratelimit).toMatch(/^"credential";r=0;t=\d+$/);
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(60);
    }
    // Once spent, the key is refused by each process, from memory or from Redis.
    for (const app of [a, b, a, b]) expect((await app.http().get('/v1/users/me').set(org.auth)).status).toBe(429);
    // Another key of the same organization is not.
    const mate = await createTeammate(a, org);
    expect((await b.http().get('/v1/users/me').set(mate.auth)).status).toBe(200);
  });
});

describe('active API keys per organization', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ MAX_ACTIVE_API_KEYS_PER_ORGANIZATION: '4' });
  });
  afterAll(async () => t.close());

  const activeKeys = async (organizationId: string) =>
    (
      (await t.db.query(`SELECT count(*)::int AS n FROM api_keys WHERE organization_id = $1 AND revoked_at IS NULL`, [organizationId])) as {
        n: number;
      }[]
    )[0].n;

  it('are capped, under concurrent creations too, and a revoked key makes room', async () => {
    const org = await createOrganization(t); // holds one key
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        t
          .http()
          .post('/v1/api-keys')
          .set(org.auth)
          .send({ name: `k${i}` }),
      ),
    );
    const statuses = results.map((res) => res.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(3);
    expect(statuses.filter((s) => s === 409)).toHaveLength(3);
    expect(results.find((res) => res.status === 409)?.body).toEqual({ detail: expect.stringContaining('4 active API keys') });
    expect(await activeKeys(org.organizationId)).toBe(4);
    // Another organization is not affected.
    const other = await createOrganization(t);
    expect((await t.http().post('/v1/api-keys').set(other.auth).send({ name: 'theirs' })).status).toBe(201);
    const created = results.find((res) => res.status === 201)?.body as { id: string };
    await t.http().delete(`/v1/api-keys/${created.id}`).set(org.auth).expect(204);
    expect((await t.http().post('/v1/api-keys').set(org.auth).send({ name: 'again' })).status).toBe(201);
    expect(await activeKeys(org.organizationId)).toBe(4);
  });
});
