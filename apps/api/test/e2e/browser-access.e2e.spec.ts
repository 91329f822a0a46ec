import express from 'express';
import helmet from 'helmet';
import request from 'supertest';
import { createOrganization } from '../support/factories';
import { startTestApp, type TestApp } from '../support/test-app';

const DASHBOARD = 'https://dashboard.example.test';

/** The preflight a browser sends before a POST /v1/rooms with an Authorization header from `origin`. */
const preflight = (t: TestApp, origin: string) =>
  t
    .http()
    .options('/v1/rooms')
    .set('Origin', origin)
    .set('Access-Control-Request-Method', 'POST')
    .set('Access-Control-Request-Headers', 'authorization,content-type');

describe('browser access', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ CORS_ORIGINS: `${DASHBOARD},http://localhost:5173` });
  });
  afterAll(async () => t.close());

  it('sends the security headers on every answer', async () => {
    const org = await createOrganization(t);
    for (const res of [await t.http().get('/v1/users/me').set(org.auth), await t.http().get('/v1/rooms/not-a-uuid').set(org.auth)]) {
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
      expect(res.headers['strict-transport-security']).toMatch(/max-age=\d+/);
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect(res.headers['content-security-policy']).toContain("default-src 'self'");
      expect(res.headers['x-powered-by']).toBeUndefined();
    }
  });

  it('sends exactly the headers helmet itself sets, though they are computed once at start', async () => {
    // helmet run per request on a bare express app: the oracle for the list the API recorded at start
    const bare = await request(
      express()
        .disable('x-powered-by')
        .use(helmet())
        .get('/', (_req, res) => res.json({})),
    ).get('/');
    const own = ['content-type', 'content-length', 'date', 'connection', 'keep-alive', 'etag'];
    const helmets = Object.entries(bare.headers).filter(([name]) => !own.includes(name));
    expect(helmets.length).toBeGreaterThanOrEqual(10);
    const org = await createOrganization(t);
    for (const res of [await t.http().get('/v1/users/me').set(org.auth), await t.http().post('/v1/rooms').set(org.auth).send('[')]) {
      for (const [name, value] of helmets) expect([name, res.headers[name]]).toEqual([name, value]);
    }
  });

  it('keeps Swagger UI working under the content security policy: its page loads its scripts from the same origin', async () => {
    const page = await t.http().get('/docs/');
    expect(page.status).toBe(200);
    const scripts = [...page.text.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1]);
    expect(scripts.length).toBeGreaterThan(0);
    for (const src of scripts) {
      expect(src).not.toMatch(/^https?:/);
      expect((await t.http().get(new URL(src, 'http://x/docs/').pathname)).status).toBe(200);
    }
    expect(page.text).not.toMatch(/<script>[^<]/); // no inline script the CSP would block
  });

  it('answers a preflight from an allowed origin, allowing the Authorization header', async () => {
    const res = await preflight(t, DASHBOARD);
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(DASHBOARD);
    expect(res.headers['access-control-allow-methods']).toContain('POST');
    expect(res.headers['access-control-allow-headers']?.toLowerCase()).toContain('authorization');
  });

  it('lets an allowed origin read answers, and gives a refused origin nothing', async () => {
    const org = await createOrganization(t);
    const allowed = await t.http().get('/v1/users/me').set(org.auth).set('Origin', DASHBOARD);
    expect(allowed.status).toBe(200);
    expect(allowed.headers['access-control-allow-origin']).toBe(DASHBOARD);
    expect(allowed.headers['access-control-expose-headers']).toContain('Retry-After');

    const answer = await preflight(t, 'https://evil.example.test');
    expect(answer.headers['access-control-allow-origin']).toBeUndefined();
    const refused = await t.http().get('/v1/users/me').set(org.auth).set('Origin', 'https://evil.example.test');
    expect(refused.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('browser access, by default', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ API_DOCS_ENABLED: 'false' });
  });
  afterAll(async () => t.close());

  it('has CORS off: no origin is allowed', async () => {
    const answer = await preflight(t, DASHBOARD);
    expect(answer.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('serves no /docs or /openapi.json when turned off', async () => {
    expect((await t.http().get('/docs/')).status).toBe(404);
    expect((await t.http().get('/openapi.json')).status).toBe(404);
  });
});
