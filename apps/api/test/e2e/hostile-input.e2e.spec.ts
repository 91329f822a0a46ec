import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { createOrganization } from '../support/factories';
import { createRoom, events, settled, startRoomsHarness, token, webhook, type RoomsHarness } from '../support/rooms-harness';
import { startTestApp, type TestApp } from '../support/test-app';

/** Every route of the app with a method that takes a body, from the Express router Nest built: a new route is covered as it lands. */
function bodyRoutes(t: TestApp): { method: 'post' | 'put' | 'patch' | 'delete'; path: string }[] {
  const express = t.app.getHttpAdapter().getInstance() as { router: { stack: { route?: { path: string; methods: object } }[] } };
  const routes = [];
  for (const { route } of express.router.stack) {
    // The webhook routes read signed raw bytes and parse only what verifies: a payload is theirs to keep.
    if (!route || route.path.startsWith('/v1/webhooks/')) continue;
    for (const method of ['post', 'put', 'patch', 'delete'] as const) {
      if (method in route.methods) routes.push({ method, path: route.path.replace(/:(\w+)/g, () => randomUUID()) });
    }
  }
  return routes;
}

/** Bodies with a reserved key, as JSON text (a JavaScript literal would take `__proto__` for the prototype), and where it is. */
const RESERVED_KEY_BODIES: [string, (string | number)[], unknown][] = [
  ['{"name": {"constructor": 1}}', ['body', 'name', 'constructor'], 1],
  ['{"name": {"__proto__": {"admin": true}}}', ['body', 'name', '__proto__'], { admin: true }],
  ['{"name": {"prototype": "x"}}', ['body', 'name', 'prototype'], 'x'],
  ['{"constructor": {"name": "x"}}', ['body', 'constructor'], { name: 'x' }],
  ['{"__proto__": 1}', ['body', '__proto__'], 1],
  ['{"prototype": null, "name": "x"}', ['body', 'prototype'], null],
  ['{"languages": ["en", {"a": [{"constructor": 2}]}]}', ['body', 'languages', 1, 'a', 0, 'constructor'], 2],
];

/** A JSON object of `n` members, as an attacker would send it. */
const manyKeys = (n: number) => JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i])));

describe('hostile input', () => {
  let h: RoomsHarness;
  beforeAll(async () => {
    h = await startRoomsHarness();
  });
  afterAll(async () => h.close());

  const apiKeyCount = async (organizationId: string) =>
    ((await h.t.db.query(`SELECT count(*)::int AS n FROM api_keys WHERE organization_id = $1`, [organizationId])) as { n: number }[])[0].n;

  it('refuses a 1 MB body of 60,000 keys with 413, before validating it, echoing nothing of it', async () => {
    const body = manyKeys(60_000);
    expect(body.length).toBeGreaterThan(800_000);
    const res = await h.t.http().post('/v1/invites/x/join').set('Content-Type', 'application/json').send(body);
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ detail: expect.stringContaining('too large') });
    expect(res.text.length).toBeLessThan(200);
  });

  it('keeps the 1 MiB limit to the webhook routes, whatever content type a body claims', async () => {
    const body = manyKeys(3_000);
    expect(body.length).toBeGreaterThan(16 * 1024);
    const res = await h.t.http().post('/v1/invites/x/join').set('Content-Type', 'application/webhook+json').send(body);
    expect(res.status).toBe(413);
  });

  it('refuses an object of too many members that fits the limit with 422, echoing only a prefix, and creates nothing', async () => {
    const org = await createOrganization(h.t);
    const before = await apiKeyCount(org.organizationId);
    const body = manyKeys(1_000);
    const res = await h.t.http().post('/v1/api-keys').set(org.auth).set('Content-Type', 'application/json').send(body);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      {
        loc: ['body'],
        msg: expect.stringContaining('at most 64 members'),
        type: 'too_long',
        input: expect.any(Object),
        ctx: { max_length: 64, actual_length: 1_000 },
      },
    ]);
    expect(Object.keys(res.body.detail[0].input as object).length).toBeLessThanOrEqual(16);
    expect(res.text.length).toBeLessThan(1_000);
    expect(await apiKeyCount(org.organizationId)).toBe(before);
  });

  it('answers a constructor, __proto__ or prototype key anywhere in a body with 422 naming it, on every route that takes a body', async () => {
    const org = await createOrganization(h.t);
    const routes = bodyRoutes(h.t);
    expect(routes.length).toBeGreaterThanOrEqual(10);
    expect(routes).toContainEqual({ method: 'post', path: '/v1/rooms' });
    const wrong: string[] = [];
    for (const { method, path } of routes) {
      for (const [body, loc, input] of RESERVED_KEY_BODIES) {
        const res = await h.t.http()[method](path).set(org.auth).set('Content-Type', 'application/json').send(body);
        const expected = [
          {
            loc,
            msg: `Extra inputs are not permitted: "${loc[loc.length - 1]}" is a reserved key`,
            type: 'extra_forbidden',
            input,
            ctx: {},
          },
        ];
        if (res.status !== 422 || JSON.stringify(res.body) !== JSON.stringify({ detail: expected })) {
          wrong.push(`${method.toUpperCase()} ${path} ${body} → ${res.status} ${res.text}`);
        }
      }
    }
    expect(wrong).toEqual([]);
    // Every reserved key is listed, and a key only named like one is not.
    const several = await h.t
      .http()
      .post('/v1/api-keys')
      .set(org.auth)
      .set('Content-Type', 'application/json')
      .send('{"constructor": 1, "name": {"constructors": 2, "__proto__": 3}}');
    expect(several.status).toBe(422);
    expect(several.body.detail.map((issue: { loc: unknown[] }) => issue.loc)).toEqual([
      ['body', 'constructor'],
      ['body', 'name', '__proto__'],
    ]);
    // A query is held to the same rule; a room is still created from a plain body.
    const query = await h.t.http().get('/v1/rooms?constructor=1').set(org.auth);
    expect(query.status).toBe(422);
    expect(query.body.detail).toEqual([expect.objectContaining({ loc: ['query', 'constructor'], type: 'extra_forbidden' })]);
    expect((await h.t.http().post('/v1/rooms').set(org.auth).send({ name: 'constructor' })).status).toBe(201);
  });

  it('echoes only a prefix of a long text in a 422', async () => {
    const org = await createOrganization(h.t);
    const name = 'n'.repeat(10_000);
    const res = await h.t.http().post('/v1/api-keys').set(org.auth).send({ name });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'name'], type: 'string_too_long', input: name.slice(0, 200) }),
    ]);
  });

  it('answers a join with a forged code 404 without looking at its body', async () => {
    const forged = `${'A'.repeat(22)}.${'B'.repeat(43)}`;
    const invalidBody = await h.t.http().post(`/v1/invites/${forged}/join`).send({ languages: 'not a list', name: 7 });
    expect(invalidBody.status).toBe(404);
    const manyMembers = await h.t.http().post(`/v1/invites/${forged}/join`).set('Content-Type', 'application/json').send(manyKeys(1_000));
    expect(manyMembers.status).toBe(404);
    expect(manyMembers.body).toEqual({ detail: 'Invite link not found.' });
  });

  it.each([
    ['gzip, really compressed', 'gzip', gzipSync(JSON.stringify({ name: 'zipped' }))],
    ['gzip on a plain body', 'gzip', Buffer.from(JSON.stringify({ name: 'plain' }))],
    ['deflate on a plain body', 'deflate', Buffer.from(JSON.stringify({ name: 'plain' }))],
    ['br on a plain body', 'br', Buffer.from(JSON.stringify({ name: 'plain' }))],
  ])('refuses a compressed body (%s) with 415 and creates nothing', async (_, coding, payload) => {
    const org = await createOrganization(h.t);
    const before = await apiKeyCount(org.organizationId);
    const res = await h.t
      .http()
      .post('/v1/api-keys')
      .set(org.auth)
      .set('Content-Type', 'application/json')
      .set('Content-Encoding', coding)
      .send(payload);
    expect(res.status).toBe(415);
    expect(res.headers['accept-encoding']).toBe('identity');
    expect(res.body).toEqual({ detail: expect.stringContaining('Content-Encoding') });
    expect(await apiKeyCount(org.organizationId)).toBe(before);
  });

  it('answers a lone surrogate in stored text with 422, on every endpoint that stores text', async () => {
    const org = await createOrganization(h.t);
    const room = await createRoom(h, org);
    const lone = '{"languages": ["en"], "identity": "a\\ud800b", "name": "\\udc00"}';
    const tokenRes = await h.t.http().post(`/v1/rooms/${room.name}/token`).set(org.auth).set('Content-Type', 'application/json').send(lone);
    expect(tokenRes.status).toBe(422);
    expect(tokenRes.body.detail.map((issue: { loc: string[]; type: string }) => [issue.loc.join('.'), issue.type])).toEqual([
      ['body.identity', 'string_unicode'],
      ['body.name', 'string_unicode'],
    ]);
    const keyRes = await h.t.http().post('/v1/api-keys').set(org.auth).set('Content-Type', 'application/json').send('{"name": "\\ud83d"}');
    expect(keyRes.status).toBe(422);
    expect(keyRes.body.detail[0]).toMatchObject({ loc: ['body', 'name'], type: 'string_unicode' });
    // A well-formed pair (an emoji) is text like any other.
    const emoji = await h.t
      .http()
      .post('/v1/api-keys')
      .set(org.auth)
      .set('Content-Type', 'application/json')
      .send('{"name": "\\ud83d\\ude00"}');
    expect(emoji.status).toBe(201);
  });

  it('bills a connection whose join is dated 30 days back at most the documented cap', async () => {
    const org = await createOrganization(h.t);
    const room = await createRoom(h, org);
    await token(h, org, room.name, { languages: ['en'], identity: 'forged' }).expect(201);
    const now = Math.floor(Date.now() / 1000);
    const participant = { identity: 'forged', sid: 'PA_forged', joinedAt: String(now - 30 * 24 * 3600) };
    await webhook(h, events.participantJoined(room.livekitName, participant, { createdAt: now - 30 * 24 * 3600 })).expect(200);
    await webhook(h, events.participantLeft(room.livekitName, participant, { createdAt: now })).expect(200);
    await settled(h);
    const detail = await h.t.http().get(`/v1/rooms/${room.id}`).set(org.auth).expect(200);
    const cap = h.t.config.maxConnectionMinutes;
    expect(cap).toBe(1440);
    expect(detail.body.participants).toEqual([
      expect.objectContaining({ participant_identity: 'forged', connection_minutes: cap, charged_cents: cap * 3 }),
    ]);
    const credit = await h.t.http().get('/v1/billing/credit').set(org.auth).expect(200);
    expect(credit.body.credit_cents).toBe(10_000 - cap * 3);
  });

  it('never logs an invite code, whatever the case of the path', async () => {
    const lines: string[] = [];
    const t = await startTestApp({ LOG_LEVEL: 'info' }, { write: (chunk: string) => void lines.push(chunk) });
    try {
      await t.http().get('/V1/INVITES/SECRETUPPER123.abc').expect(404);
      await t.http().get('/v1/Invites/SECRETMIXED123.abc').expect(404);
      await t.http().post('/V1/invites/SECRETJOIN123.abc/join').send({}).expect(404);
      const all = lines.join('\n');
      expect(all).toContain('[code]');
      for (const secret of ['SECRETUPPER123', 'SECRETMIXED123', 'SECRETJOIN123']) expect(all).not.toContain(secret);
    } finally {
      await t.close();
    }
  });
});
