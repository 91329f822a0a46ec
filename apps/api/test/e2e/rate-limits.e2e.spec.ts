import { randomBytes } from 'node:crypto';
import { createOrganization, createTeammate } from '../support/factories';
import { createRoom, events, startRoomsHarness, webhook, type RoomsHarness } from '../support/rooms-harness';
import { startTestApp, startTestAppOn, type TestApp } from '../support/test-app';
import { blockSizeFor } from '../../src/common/rate-limiting/rate-limits';

const LIMITS = {
  RATE_LIMIT_WINDOW_SECONDS: '60',
  RATE_LIMIT_PER_CREDENTIAL: '5',
  RATE_LIMIT_PER_ADDRESS: '4',
  RATE_LIMIT_FAILED_AUTH_PER_ADDRESS: '3',
  // Each test speaks from addresses of its own, given the way a proxy in front of the API would.
  TRUST_PROXY_HOPS: '1',
  METRICS_TOKEN: 'metrics-token-for-tests',
};

/** A client address no other test uses (TEST-NET-3, never routed). */
const newAddress = () => `203.0.113.${randomBytes(1)[0]}`;

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

  it('refuses an address that keeps failing authentication, before looking its credentials up', async () => {
    const address = newAddress();
    const org = await createOrganization(h.t);
    for (let i = 0; i < 3; i++) {
      const res = await me({ Authorization: `Bearer trk_${'x'.repeat(40)}` }, address);
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer');
      expectLimitHeaders(res, 'failed-auth', 3, 2 - i);
    }
    const fourth = await me({ Authorization: `Bearer trk_${'y'.repeat(40)}` }, address);
    expect(fourth.status).toBe(429);
    expect(fourth.headers['retry-after']).toMatch(/^\d+$/);
    // Blocked for the rest of the window, whatever it sends; other addresses are not.
    expect((await me(org.auth, address)).status).toBe(429);
    expect((await me(org.auth, newAddress())).status).toBe(200);
  });

  it('counts wrong metrics tokens as failed authentications of the address', async () => {
    const address = newAddress();
    const org = await createOrganization(h.t);
    const scrape = (token: string) => h.t.http().get('/metrics').set('Authorization', `Bearer ${token}`).set('X-Forwarded-For', address);
    for (let i = 0; i < 3; i++) {
      const res = await scrape(`wrong-${i}`);
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer');
      expectLimitHeaders(res, 'failed-auth', 3, 2 - i);
    }
    const fourth = await scrape('wrong-3');
    expect(fourth.status).toBe(429);
    expect(fourth.headers['retry-after']).toMatch(/^\d+$/);
    // The address is refused everywhere for the rest of the window, the right token included.
    expect((await me(org.auth, address)).status).toBe(429);
    expect((await scrape(LIMITS.METRICS_TOKEN)).status).toBe(429);
    expect(
      (await h.t.http().get('/metrics').set('Authorization', `Bearer ${LIMITS.METRICS_TOKEN}`).set('X-Forwarded-For', newAddress())).status,
    ).toBe(200);
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
