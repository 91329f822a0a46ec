import { createOrganization } from '../support/factories';
import { startTestApp, type TestApp } from '../support/test-app';

describe('bearer authentication', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t.close());

  const failures: [string, Record<string, string>][] = [
    ['no Authorization header', {}],
    ['an empty header', { Authorization: '' }],
    ['a Basic scheme', { Authorization: 'Basic dXNlcjpwYXNz' }],
    ['Bearer with no credential', { Authorization: 'Bearer' }],
    ['Bearer with two words', { Authorization: 'Bearer trk_a trk_b' }],
    ['an unknown API key', { Authorization: 'Bearer trk_0000000000000000000000000000000000000000' }],
    ['a credential that is neither key nor JWT', { Authorization: 'Bearer hello' }],
    ['a JWT while no identity provider is configured', { Authorization: 'Bearer eyJhbGciOiJIUzI1NiJ9.e30.c2ln' }],
  ];

  it.each(failures)('answers 401 with WWW-Authenticate for %s', async (_label, headers) => {
    for (const path of ['/v1/users/me', '/v1/api-keys', '/v1/supported-languages']) {
      const res = await t.http().get(path).set(headers);
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer');
      expect(res.body).toEqual({ detail: expect.any(String) });
      expect(res.body.detail.length).toBeGreaterThan(5);
    }
  });

  it('rejects a POST without credentials before looking at the body', async () => {
    const res = await t.http().post('/v1/api-keys').send({ name: '' });
    expect(res.status).toBe(401);
  });

  it('lets a key act for the user who created it', async () => {
    const org = await createOrganization(t);
    const res = await t.http().get('/v1/users/me').set(org.auth);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: org.userId,
      email: org.email,
      first_name: 'Ada',
      last_name: 'Lovelace',
      image_url: '',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/),
    });
  });

  it('tells every key of many concurrent requests apart: each acts for its own user, revoked and unknown keys get 401', async () => {
    const orgs = await Promise.all(Array.from({ length: 6 }, () => createOrganization(t)));
    const revoked = await createOrganization(t);
    const revokedKeyId = ((await t.http().get('/v1/api-keys').set(revoked.auth)).body as { items: { id: string }[] }).items[0].id;
    await t.http().delete(`/v1/api-keys/${revokedKeyId}`).set(revoked.auth).expect(204);
    const callers = [
      ...orgs.map((org) => ({ auth: org.auth, email: org.email as string | null })),
      { auth: revoked.auth, email: null },
      { auth: { Authorization: 'Bearer trk_1111111111111111111111111111111111111111' }, email: null },
    ];
    const rounds = Array.from({ length: 5 }, () => callers).flat();
    // Hold the key table while the requests arrive, so their lookups queue up and go out together.
    const holder = t.db.createQueryRunner();
    await holder.startTransaction();
    await holder.query(`LOCK TABLE api_keys IN ACCESS EXCLUSIVE MODE`);
    const pending = Promise.all(
      rounds.map(({ auth }) =>
        t
          .http()
          .get('/v1/users/me')
          .set(auth)
          .then((res) => res),
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    await holder.commitTransaction();
    await holder.release();
    const answers = await pending;
    expect(answers.map((res) => (res.status === 200 ? (res.body as { email: string }).email : res.status))).toEqual(
      rounds.map(({ email }) => email ?? 401),
    );
  });

  it('accepts the scheme name in any case', async () => {
    const org = await createOrganization(t);
    const res = await t
      .http()
      .get('/v1/users/me')
      .set({ Authorization: `bearer ${org.apiKey}` });
    expect(res.status).toBe(200);
  });

  it('serves the supported languages sorted by name', async () => {
    const org = await createOrganization(t);
    const res = await t.http().get('/v1/supported-languages').set(org.auth);
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    expect(res.body.length).toBeGreaterThanOrEqual(40);
    const names = (res.body as { name: string }[]).map((l) => l.name);
    expect(names).toEqual([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    expect(res.body).toContainEqual({ code: 'de', name: 'German' });
  });

  it('echoes a request id header on every answer, errors included', async () => {
    const ok = await t.http().get('/health/live');
    expect(ok.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const denied = await t.http().get('/v1/users/me').set('X-Request-Id', 'trace-123');
    expect(denied.headers['x-request-id']).toBe('trace-123');
  });
});
