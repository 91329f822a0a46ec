import { allows, PERMISSIONS, ROLES, type Permission, type Role } from '@app/domain';
import { createOrganization, createTeammate, type TestOrganization } from '../support/factories';
import { routeTable, type Route } from '../support/route-table';
import { startRoomsHarness, type RoomsHarness } from '../support/rooms-harness';

/** A value for each path parameter: well-formed, naming nothing (a route that may run answers 404 or 422). */
const SAMPLE: Record<string, string> = {
  room_name: 'no-such-room',
  invite_code: 'no-such-code',
  entry_id: '1',
  delivery_id: '00000000-0000-4000-8000-000000000000',
};
const samplePath = (path: string) =>
  path.replace(/:([a-z_]+)/g, (_, name: string) => SAMPLE[name] ?? '00000000-0000-4000-8000-000000000000');

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

  const call = (route: Route, auth: Record<string, string>) => {
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
      outcomes.push(
        `${route.method} ${route.path} ${res.status === 403 ? 'refused' : [401, 403].includes(res.status) ? res.status : 'allowed'}`,
      );
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
      outcomes.push(
        `${route.method} ${route.path} ${res.status === 403 ? 'refused' : [401, 403].includes(res.status) ? res.status : 'allowed'}`,
      );
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
