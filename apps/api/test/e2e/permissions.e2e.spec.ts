import { allows, PERMISSIONS, ROLES, type Permission, type Role } from '@app/domain';
import { createOrganization, createTeammate, type TestOrganization } from '../support/factories';
import { routeTable, type Route } from '../support/route-table';
import { startRoomsHarness, type RoomsHarness } from '../support/rooms-harness';
import { openStream } from '../support/event-stream-client';

/** A value for each path parameter: well-formed, naming nothing (a route that may run answers 404 or 422). */
const SAMPLE: Record<string, string> = {
  room_name: 'no-such-room',
  invite_code: 'no-such-code',
  entry_id: '1',
  delivery_id: '00000000-0000-4000-8000-000000000000',
};
/** The query a route needs to answer 2xx at all. */
const SAMPLE_QUERY: Record<string, string> = {
  '/v1/usage/overview': '?starts_after=2026-01-01T00:00:00Z&ends_before=2026-01-02T00:00:00Z',
};
const samplePath = (path: string) =>
  path.replace(/:([a-z_]+)/g, (_, name: string) => SAMPLE[name] ?? '00000000-0000-4000-8000-000000000000') + (SAMPLE_QUERY[path] ?? '');

/**
 * What the caller got: refused (403), or allowed. A GET of a collection must then answer 2xx; a route
 * given made-up ids or an empty body may answer what its handler decides (404, 409, 410, 422…), which it
 * reaches only past the permission check. Anything else (401, 5xx) is shown as it is.
 */
function judged(route: Route, status: number): string {
  if (status === 403) return 'refused';
  const ok = status >= 200 && status < 300;
  if (route.method === 'GET' && !route.path.includes(':')) return ok ? 'allowed' : String(status);
  return ok || [400, 404, 409, 410, 415, 422].includes(status) ? 'allowed' : String(status);
}

/**
 * Every route of the router, as each role and as a key scoped to one permission: the permission table
 * (libs/domain permissions.ts, read here as data) decides 403 or not, and a 403 names the permission.
 */
describe('permissions on every route', () => {
  let h: RoomsHarness;
  let routes: Route[];
  let org: TestOrganization;
  const members = new Map<Role, TestOrganization>();

  beforeAll(async () => {
    h = await startRoomsHarness();
    routes = routeTable(h.t.app);
    org = await createOrganization(h.t);
    for (const role of ROLES) members.set(role, role === 'owner' ? org : await createTeammate(h.t, org, role));
  });
  afterAll(async () => h.close());

  const call = async (route: Route, auth: Record<string, string>): Promise<{ status: number; body: { detail?: string } }> => {
    if (route.path === '/v1/events/stream') {
      // A stream that opens stays open: its status is all this needs.
      const stream = await openStream(h.t.server, route.path, auth);
      const body = stream.status === 200 ? {} : (JSON.parse(await stream.body()) as { detail?: string });
      stream.close();
      return { status: stream.status, body };
    }
    const agent = h.t.http();
    const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
    const request = agent[method](samplePath(route.path)).set(auth);
    return route.method === 'GET' || route.method === 'DELETE' ? request : request.send({});
  };

  it('finds every route, and each declares what it needs (public routes say so)', () => {
    expect(routes.length).toBeGreaterThanOrEqual(45);
    expect(routes.filter((route) => route.access === null).map((r) => `${r.method} ${r.path}`)).toEqual([]);
    expect(routes.find((r) => r.method === 'POST' && r.path === '/v1/rooms')?.access).toBe('rooms:write');
    expect(routes.find((r) => r.path === '/v1/webhooks/livekit')?.access).toBe('public');
  });

  it.each(ROLES)('answers the %s role 403 exactly where the table withholds the route’s permission', async (role) => {
    const auth = members.get(role)!.auth;
    const outcomes: string[] = [];
    const expected: string[] = [];
    for (const route of routes.filter((r) => r.access !== 'public')) {
      const res = await call(route, auth);
      const refused = route.access !== 'member' && !allows(role, null, route.access as Permission);
      expected.push(`${route.method} ${route.path} ${refused ? 'refused' : 'allowed'}`);
      outcomes.push(`${route.method} ${route.path} ${judged(route, res.status)}`);
      if (res.status === 403) expect(res.body.detail).toContain(String(route.access));
    }
    expect(outcomes).toEqual(expected);
  });

  it.each(PERMISSIONS)('lets an owner’s key scoped to %s use only the routes that need it', async (permission) => {
    const scoped = await createTeammate(h.t, org, 'owner');
    await h.t.db.query(`UPDATE api_keys SET scopes = $1 WHERE created_by_user_id = $2`, [[permission], scoped.userId]);
    const outcomes: string[] = [];
    const expected: string[] = [];
    for (const route of routes.filter((r) => r.access !== 'public')) {
      const res = await call(route, scoped.auth);
      const refused = route.access !== 'member' && route.access !== permission;
      expected.push(`${route.method} ${route.path} ${refused ? 'refused' : 'allowed'}`);
      outcomes.push(`${route.method} ${route.path} ${judged(route, res.status)}`);
    }
    expect(outcomes).toEqual(expected);
  });

  it('changes nothing when it refuses: a viewer cannot create a room, end one or revoke a key', async () => {
    const viewer = members.get('viewer')!;
    const before = (await h.t.db.query(`SELECT count(*)::int AS n FROM rooms WHERE organization_id = $1`, [org.organizationId])) as {
      n: number;
    }[];
    const res = await h.t.http().post('/v1/rooms').set(viewer.auth).send({});
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: 'This needs the permission rooms:write; the role viewer does not hold it.' });
    const after = (await h.t.db.query(`SELECT count(*)::int AS n FROM rooms WHERE organization_id = $1`, [org.organizationId])) as {
      n: number;
    }[];
    expect(after).toEqual(before);
  });

  it('acts in the API key’s own organization only: another Organization-Id is 404', async () => {
    const other = await createOrganization(h.t);
    await h.t.http().get('/v1/rooms').set(org.auth).set('Organization-Id', org.organizationId).expect(200);
    const res = await h.t.http().get('/v1/rooms').set(org.auth).set('Organization-Id', other.organizationId);
    expect(res.status).toBe(404);
  });

  it('refuses an expired key with 401 saying so', async () => {
    const mate = await createTeammate(h.t, org, 'developer');
    await h.t.db.query(`UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE created_by_user_id = $1`, [mate.userId]);
    const res = await h.t.http().get('/v1/users/me').set(mate.auth);
    expect(res.status).toBe(401);
    expect(res.body.detail).toMatch(/expired at \d{4}-\d\d-\d\dT/);
  });

  it('narrows a demoted member’s key at once, and refuses a removed member’s key', async () => {
    const mate = await createTeammate(h.t, org, 'developer');
    await h.t.http().get('/v1/api-keys').set(mate.auth).expect(200);
    await h.t.db.query(`UPDATE memberships SET role = 'billing' WHERE user_id = $1`, [mate.userId]);
    expect((await h.t.http().get('/v1/api-keys').set(mate.auth)).status).toBe(403);
    await h.t.db.query(`DELETE FROM memberships WHERE user_id = $1`, [mate.userId]);
    expect((await h.t.http().get('/v1/users/me').set(mate.auth)).status).toBe(401);
  });
});

describe('scoped and expiring API keys', () => {
  let h: RoomsHarness;
  let org: TestOrganization;
  beforeAll(async () => {
    h = await startRoomsHarness();
    org = await createOrganization(h.t);
  });
  afterAll(async () => h.close());

  it('makes a key that can only mint join tokens: shown with its scopes, refused elsewhere', async () => {
    const room = await h.t.http().post('/v1/rooms').set(org.auth).send({}).expect(201);
    const created = await h.t
      .http()
      .post('/v1/api-keys')
      .set(org.auth)
      .send({ name: 'tokens only', scopes: ['rooms:write'] })
      .expect(201);
    expect(created.body.scopes).toEqual(['rooms:write']);
    expect(created.body.expires_at).toBeNull();
    const auth = { Authorization: `Bearer ${created.body.key as string}` };
    await h.t
      .http()
      .post(`/v1/rooms/${room.body.room as string}/token`)
      .set(auth)
      .send({ identity: 'kim', languages: ['en'] })
      .expect(201);
    const refused = await h.t.http().get('/v1/rooms').set(auth);
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toBe("This needs the permission rooms:read; this API key's scopes do not include it.");
    const listed = (await h.t.http().get('/v1/api-keys').set(org.auth).expect(200)).body.items as { id: string; scopes: string[] }[];
    expect(listed.find((k) => k.id === created.body.id)?.scopes).toEqual(['rooms:write']);
  });

  it('refuses scopes beyond the creator (403), unknown scopes and expiries out of bounds (422), and creates nothing', async () => {
    const developer = await createTeammate(h.t, org, 'developer');
    const count = async () =>
      (
        (await h.t.db.query(`SELECT count(*)::int AS n FROM api_keys WHERE organization_id = $1`, [org.organizationId])) as { n: number }[]
      )[0].n;
    const before = await count();
    const beyond = await h.t
      .http()
      .post('/v1/api-keys')
      .set(developer.auth)
      .send({ name: 'x', scopes: ['members:write'] });
    expect(beyond.status).toBe(403);
    expect(beyond.body.detail).toContain('members:write');
    const unknown = await h.t
      .http()
      .post('/v1/api-keys')
      .set(org.auth)
      .send({ name: 'x', scopes: ['rooms:fly'] });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail[0]).toMatchObject({ loc: ['body', 'scopes', 0], type: 'enum' });
    for (const expires_at of [
      new Date(Date.now() + 30_000).toISOString(),
      new Date(Date.now() + 3 * 365 * 86_400_000).toISOString(),
      'tomorrow',
    ]) {
      const res = await h.t.http().post('/v1/api-keys').set(org.auth).send({ name: 'x', expires_at });
      expect(res.status).toBe(422);
      expect(res.body.detail[0].loc).toEqual(['body', 'expires_at']);
    }
    expect(await count()).toBe(before);
  });

  it('makes a key that expires: shown with its expiry, then 401 saying it expired', async () => {
    const expiresAt = new Date(Date.now() + 90 * 86_400_000);
    const created = await h.t
      .http()
      .post('/v1/api-keys')
      .set(org.auth)
      .send({ name: 'quarter', expires_at: expiresAt.toISOString() })
      .expect(201);
    expect(created.body.expires_at).toBe(expiresAt.toISOString());
    const auth = { Authorization: `Bearer ${created.body.key as string}` };
    await h.t.http().get('/v1/users/me').set(auth).expect(200);
    await h.t.db.query(`UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1`, [created.body.id]);
    const res = await h.t.http().get('/v1/users/me').set(auth);
    expect(res.status).toBe(401);
    expect(res.body.detail).toMatch(/^This API key expired at /);
    const listed = (await h.t.http().get('/v1/api-keys').set(org.auth).expect(200)).body.items as { id: string }[];
    expect(listed.some((k) => k.id === created.body.id)).toBe(true);
  });
});
