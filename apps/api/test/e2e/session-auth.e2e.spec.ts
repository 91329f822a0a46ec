import { startIdentityProviderDouble, type IdentityProviderDouble } from '../support/jwks-double';
import { startTestApp, type TestApp } from '../support/test-app';

describe('session JWTs from the identity provider', () => {
  let idp: IdentityProviderDouble;
  let t: TestApp;
  beforeAll(async () => {
    idp = await startIdentityProviderDouble();
    t = await startTestApp({ AUTH_JWKS_URL: idp.jwksUrl, AUTH_ISSUER: idp.issuer, AUTH_AUDIENCE: idp.audience });
  });
  afterAll(async () => {
    await t.close();
    await idp.close();
  });

  const claims = (sub: string, org = 'acme') => ({
    sub,
    email: `${sub}@acme.test`,
    given_name: 'Grace',
    family_name: 'Hopper',
    picture: 'https://img.test/g.png',
    org_id: org,
  });

  it('provisions the user and organization on first use, and finds them again after', async () => {
    const token = await idp.sign(claims('grace'));
    const first = await t
      .http()
      .get('/v1/users/me')
      .set({ Authorization: `Bearer ${token}` });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      email: 'grace@acme.test',
      first_name: 'Grace',
      last_name: 'Hopper',
      image_url: 'https://img.test/g.png',
    });
    const second = await t
      .http()
      .get('/v1/users/me')
      .set({ Authorization: `Bearer ${await idp.sign(claims('grace'))}` });
    expect(second.body.id).toBe(first.body.id);
  });

  it('puts users with the same org claim in one organization, and others apart', async () => {
    const alan = `Bearer ${await idp.sign(claims('alan', 'bletchley'))}`;
    const joan = `Bearer ${await idp.sign(claims('joan', 'bletchley'))}`;
    const other = `Bearer ${await idp.sign(claims('eve', 'elsewhere'))}`;
    await t.http().post('/v1/api-keys').set({ Authorization: alan }).send({ name: 'alan key' });
    const joanList = await t.http().get('/v1/api-keys').set({ Authorization: joan });
    expect(joanList.body.items.map((k: { name: string }) => k.name)).toContain('alan key');
    const otherList = await t.http().get('/v1/api-keys').set({ Authorization: other });
    expect(otherList.body.items).toEqual([]);
  });

  it('provisions concurrent first requests of one user exactly once', async () => {
    const token = `Bearer ${await idp.sign(claims('racer', 'race-org'))}`;
    const answers = await Promise.all(Array.from({ length: 8 }, () => t.http().get('/v1/users/me').set({ Authorization: token })));
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    const [{ count }] = (await t.db.query(`SELECT count(*)::int AS count FROM organizations WHERE external_id = 'org:race-org'`)) as {
      count: number;
    }[];
    expect(count).toBe(1);
  });

  it.each([
    ['expired', () => idp.sign(claims('late'), { expiresIn: '-1m' })],
    ['for another audience', () => idp.sign(claims('lost'), { audience: 'someone-else' })],
    ['tampered', async () => `${await idp.sign(claims('mallory'))}x`],
  ])('answers 401 for a token that is %s', async (_label, make) => {
    const res = await t
      .http()
      .get('/v1/users/me')
      .set({ Authorization: `Bearer ${await make()}` });
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer');
    expect(res.body).toEqual({ detail: expect.any(String) });
  });

  it('accepts a valid session token from an address over its failed-authentication budget, and refuses its failures', async () => {
    const env = { AUTH_JWKS_URL: idp.jwksUrl, AUTH_ISSUER: idp.issuer, AUTH_AUDIENCE: idp.audience };
    const limited = await startTestApp({ ...env, RATE_LIMIT_FAILED_AUTH_PER_ADDRESS: '2', TRUST_PROXY_HOPS: '1' });
    try {
      // The app has Redis keys of its own: the address is new to it.
      const me = (token: string) =>
        limited
          .http()
          .get('/v1/users/me')
          .set({ Authorization: `Bearer ${token}` })
          .set('X-Forwarded-For', '2001:db8::25');
      const forged = `${await idp.sign(claims('mallory'))}x`;
      expect((await me(forged)).status).toBe(401);
      expect((await me(forged)).status).toBe(401);
      expect((await me(forged)).status).toBe(429);
      const valid = await me(await idp.sign(claims('nat-neighbour')));
      expect(valid.status).toBe(200);
      expect(valid.headers['ratelimit-policy']).toMatch(/^"credential";/);
      expect((await me(forged)).status).toBe(429);
    } finally {
      await limited.close();
    }
  });

  it('still accepts API keys', async () => {
    const token = `Bearer ${await idp.sign(claims('keymaker', 'keys'))}`;
    const created = await t.http().post('/v1/api-keys').set({ Authorization: token }).send({ name: 'k' });
    const me = await t
      .http()
      .get('/v1/users/me')
      .set({ Authorization: `Bearer ${created.body.key}` });
    expect(me.body.email).toBe('keymaker@acme.test');
  });
});
