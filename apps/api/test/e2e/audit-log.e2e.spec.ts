import request from 'supertest';
import { COMMANDS } from '../../src/cli/commands';
import { AuditLogService } from '../../src/modules/audit/audit-log.service';
import { createOrganization, createTeammate, type TestOrganization } from '../support/factories';
import { startIdentityProviderDouble, type IdentityProviderDouble } from '../support/jwks-double';
import { checkoutAndPay, startFullHarness, type FullHarness } from '../support/payments-harness';
import { createRoom, settled } from '../support/rooms-harness';
import { signStripeEvent } from '../support/stripe-webhooks';

interface AuditEvent {
  id: string;
  occurred_at: string;
  action: string;
  actor: { type: string; user_id: string | null; email: string | null; api_key_id: string | null; api_key_prefix: string | null };
  target: { type: string; id: string };
  request_id: string | null;
  ip: string | null;
  details: Record<string, unknown>;
}

/**
 * The audit log through HTTP: every change writes its event in its own transaction (none when it rolls
 * back), read back newest first with who did it and to what; 403s are recorded; the table is append-only
 * but for retention; no secret ever lands in it; another organization's events are never reachable.
 */
describe('audit log', () => {
  let idp: IdentityProviderDouble;
  let h: FullHarness;
  /** Every secret the tests were shown: none may appear in any audit row. */
  const secrets: string[] = [];

  beforeAll(async () => {
    idp = await startIdentityProviderDouble();
    h = await startFullHarness({
      AUTH_JWKS_URL: idp.jwksUrl,
      AUTH_ISSUER: idp.issuer,
      AUTH_AUDIENCE: idp.audience,
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    });
  });
  afterAll(async () => {
    await h.close();
    await idp.close();
  });

  const http = () => h.t.http();

  async function organization(): Promise<TestOrganization> {
    const org = await createOrganization(h.t);
    secrets.push(org.apiKey);
    return org;
  }

  async function audit(org: TestOrganization, query: Record<string, string | number> = {}): Promise<AuditEvent[]> {
    const res = await http()
      .get('/v1/audit-events')
      .query({ limit: 200, ...query })
      .set(org.auth)
      .expect(200);
    return res.body.items as AuditEvent[];
  }

  async function keyOf(org: TestOrganization): Promise<{ id: string; key_prefix: string }> {
    const [key] = (await h.t.db.query(`SELECT id, key_prefix FROM api_keys WHERE created_by_user_id = $1 AND organization_id = $2`, [
      org.userId,
      org.organizationId,
    ])) as { id: string; key_prefix: string }[];
    return key;
  }

  /** The one event of `action` about `targetId`. */
  async function eventOf(org: TestOrganization, action: string, targetId: string): Promise<AuditEvent> {
    const found = (await audit(org, { action })).filter((event) => event.target.id === targetId);
    expect(found).toHaveLength(1);
    return found[0];
  }

  it('records every change made through the API with its actor, target, request id and address', async () => {
    const org = await organization();
    const key = await keyOf(org);
    const byKey = { type: 'api_key', user_id: org.userId, email: org.email, api_key_id: key.id, api_key_prefix: org.apiKey.slice(0, 8) };
    const expected: [string, string, string][] = [];
    const expect201 = async (res: request.Response) => {
      expect([200, 201, 202, 204]).toContain(res.status);
      return res.body as Record<string, unknown>;
    };

    // API keys
    const created = await expect201(
      await http().post('/v1/api-keys').set(org.auth).set('X-Request-Id', 'audit-req-1').send({ name: 'ci' }),
    );
    secrets.push(created.key as string);
    expected.push(['api_key.created', 'api_key', created.id as string]);
    await expect201(
      await http()
        .delete(`/v1/api-keys/${created.id as string}`)
        .set(org.auth),
    );
    expected.push(['api_key.revoked', 'api_key', created.id as string]);

    // Members and invitations
    const mate = await createTeammate(h.t, org, 'developer');
    secrets.push(mate.apiKey);
    await expect201(await http().patch(`/v1/members/${mate.userId}`).set(org.auth).send({ role: 'viewer' }));
    expected.push(['member.role_changed', 'member', mate.userId]);
    await expect201(await http().delete(`/v1/members/${mate.userId}`).set(org.auth));
    expected.push(['member.removed', 'member', mate.userId]);
    const doomedInvitation = await expect201(
      await http().post('/v1/member-invitations').set(org.auth).send({ email: 'x@example.test', role: 'viewer' }),
    );
    secrets.push(doomedInvitation.invitation_token as string);
    expected.push(['member_invitation.created', 'member_invitation', doomedInvitation.id as string]);
    await expect201(
      await http()
        .delete(`/v1/member-invitations/${doomedInvitation.id as string}`)
        .set(org.auth),
    );
    expected.push(['member_invitation.revoked', 'member_invitation', doomedInvitation.id as string]);

    // Rooms, invites, transcripts
    const room = await createRoom(h, org, { room_name: 'audited' });
    expected.push(['room.created', 'room', room.id]);
    const invite = await expect201(
      await http().post(`/v1/rooms/${room.id}/invites`).set(org.auth).send({ expires_in_seconds: 600, max_uses: 2 }),
    );
    secrets.push(invite.invite_code as string);
    expected.push(['invite.created', 'room', room.id]);
    await expect201(await http().delete(`/v1/rooms/${room.id}/invites`).set(org.auth));
    expected.push(['invites.revoked', 'room', room.id]);
    await expect201(await http().put('/v1/transcripts/settings').set(org.auth).send({ store: false, retention_days: 7 }));
    expected.push(['transcripts.settings_changed', 'organization', org.organizationId]);
    await expect201(await http().delete(`/v1/rooms/${room.id}/transcript`).set(org.auth));
    expected.push(['transcript.erased', 'room', room.id]);

    // Glossaries
    const glossary = await expect201(await http().post('/v1/glossaries').set(org.auth).send({ name: 'Products' }));
    const glossaryId = glossary.id as string;
    expected.push(['glossary.created', 'glossary', glossaryId]);
    await expect201(await http().patch(`/v1/glossaries/${glossaryId}`).set(org.auth).send({ name: 'Brands' }));
    expected.push(['glossary.updated', 'glossary', glossaryId]);
    await expect201(
      await http()
        .put(`/v1/glossaries/${glossaryId}/entries`)
        .set(org.auth)
        .send([{ terms: { en: 'car', es: 'coche' } }]),
    );
    expected.push(['glossary.entries_replaced', 'glossary', glossaryId]);
    await expect201(
      await http()
        .put(`/v1/rooms/${room.id}/glossaries`)
        .set(org.auth)
        .send({ glossary_ids: [glossaryId] }),
    );
    expected.push(['room.glossaries_set', 'room', room.id]);
    await expect201(await http().delete(`/v1/glossaries/${glossaryId}`).set(org.auth));
    expected.push(['glossary.deleted', 'glossary', glossaryId]);

    // Billing: alerts, a checkout, and the purchase Stripe reports (a delivery to the endpoint below)
    const endpoint = await expect201(
      await http().post('/v1/webhook-endpoints').set(org.auth).send({ url: 'http://127.0.0.1:9/hooks?token=abc' }),
    );
    secrets.push(endpoint.secret as string);
    expected.push(['webhook_endpoint.created', 'webhook_endpoint', endpoint.id as string]);
    await expect201(await http().put('/v1/billing/alerts').set(org.auth).send({ low_balance_cents: 100 }));
    expected.push(['billing.alerts_changed', 'organization', org.organizationId]);
    const paid = await checkoutAndPay(h, org, 2500);
    const sessionId = paid.data.object.id;
    expected.push(['checkout.created', 'checkout_session', sessionId]);
    const signed = signStripeEvent(paid);
    await http().post('/v1/webhooks/stripe').set(signed.headers).send(signed.body).expect(200);
    await settled(h);
    const [delivery] = (await h.t.db.query(`SELECT id FROM webhook_deliveries WHERE endpoint_id = $1`, [endpoint.id])) as { id: string }[];
    await expect201(
      await http()
        .post(`/v1/webhook-endpoints/${endpoint.id as string}/deliveries/${delivery.id}/retry`)
        .set(org.auth),
    );
    expected.push(['webhook_delivery.retried', 'webhook_delivery', delivery.id]);
    await expect201(
      await http()
        .delete(`/v1/webhook-endpoints/${endpoint.id as string}`)
        .set(org.auth),
    );
    expected.push(['webhook_endpoint.deleted', 'webhook_endpoint', endpoint.id as string]);

    await expect201(await http().delete(`/v1/rooms/${room.id}`).set(org.auth));
    expected.push(['room.ended_by_api', 'room', room.id]);

    for (const [action, type, id] of expected) {
      const event = await eventOf(org, action, id);
      expect({ action, target: event.target, actor: event.actor }).toEqual({ action, target: { type, id }, actor: byKey });
      expect(event.ip).toMatch(/127\.0\.0\.1/);
      expect(event.request_id).toEqual(expect.any(String));
    }
    expect((await eventOf(org, 'api_key.created', created.id as string)).request_id).toBe('audit-req-1');
    expect((await eventOf(org, 'member.role_changed', mate.userId)).details).toEqual({ from: 'developer', to: 'viewer' });
    expect((await eventOf(org, 'webhook_endpoint.created', endpoint.id as string)).details).toMatchObject({
      url: 'http://127.0.0.1:9/hooks',
    });

    // The purchase Stripe reported: by the system, no request of ours.
    const purchase = await eventOf(org, 'credit.purchased', sessionId);
    expect(purchase).toMatchObject({
      actor: { type: 'system', user_id: null, email: null, api_key_id: null, api_key_prefix: null },
      target: { type: 'checkout_session', id: sessionId },
      request_id: null,
      ip: null,
      details: { delta_cents: 2500, currency: 'usd', stripe_event_id: paid.id },
    });

    // Newest first: the room's end was the last change.
    const all = await audit(org);
    expect(all[0].action).toBe('room.ended_by_api');
    const times = all.map((event) => Date.parse(event.occurred_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
  });

  it('records the operator’s credit grant through the CLI, and an invitation accepted by a session', async () => {
    const org = await organization();
    await COMMANDS['credit:grant'].run(h.t.app, ['--org', org.organizationId, '--cents', '700', '--note', 'goodwill']);
    const [grant] = await audit(org, { action: 'credit.granted', limit: 1 });
    expect(grant).toMatchObject({
      actor: { type: 'operator', user_id: null, email: null, api_key_id: null, api_key_prefix: null },
      target: { type: 'organization', id: org.organizationId },
      details: { delta_cents: 700, note: 'goodwill' },
    });

    const email = `invited-${process.pid}@example.test`;
    const token = await idp.sign({ sub: `sub-${email}`, email, email_verified: true });
    const session = { Authorization: `Bearer ${token}` };
    const me = (await http().get('/v1/users/me').set(session).expect(200)).body as { id: string };
    const invitation = (await http().post('/v1/member-invitations').set(org.auth).send({ email, role: 'admin' }).expect(201)).body;
    secrets.push(invitation.invitation_token as string, token);
    await http().post('/v1/member-invitations/accept').set(session).send({ invitation_token: invitation.invitation_token }).expect(200);
    const accepted = await eventOf(org, 'member_invitation.accepted', invitation.id as string);
    expect(accepted.actor).toEqual({ type: 'user', user_id: me.id, email, api_key_id: null, api_key_prefix: null });
    expect(accepted.details).toEqual({ email, role: 'admin', already_a_member: false });
  });

  it('writes access.denied, naming the permission, for each 403 of the guard or of a service', async () => {
    const org = await organization();
    const viewer = await createTeammate(h.t, org, 'viewer');
    const admin = await createTeammate(h.t, org, 'admin');
    secrets.push(viewer.apiKey, admin.apiKey);
    await http().post('/v1/rooms').set(viewer.auth).send({}).expect(403);
    await http().get('/v1/audit-events').set(viewer.auth).expect(403);
    // The route's permission is held; the owner rule refuses (a service's 403).
    await http().patch(`/v1/members/${viewer.userId}`).set(admin.auth).send({ role: 'owner' }).expect(403);

    const denied = await audit(org, { action: 'access.denied' });
    expect(denied.map((event) => [event.actor.user_id, event.details.permission, event.details.method, event.details.route])).toEqual([
      [admin.userId, 'members:write', 'PATCH', '/v1/members/:user_id'],
      [viewer.userId, 'audit:read', 'GET', '/v1/audit-events'],
      [viewer.userId, 'rooms:write', 'POST', '/v1/rooms'],
    ]);
    expect(denied[2]).toMatchObject({
      target: { type: 'organization', id: org.organizationId },
      actor: { type: 'api_key', email: viewer.email },
      details: { reason: 'This needs the permission rooms:write; the role viewer does not hold it.' },
    });
    // Nothing else changed: no room, no role.
    expect(await audit(org, { action: 'room.created' })).toEqual([]);
    expect(await audit(org, { action: 'member.role_changed' })).toEqual([]);
  });

  it('leaves neither the change nor its event when the transaction fails after the audit insert', async () => {
    const org = await organization();
    // Fails at COMMIT, after the glossary, its audit event and its revision were all written.
    await h.t.db.query(`
      CREATE FUNCTION fail_doomed() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'forced failure'; END; $$ LANGUAGE plpgsql;
      CREATE CONSTRAINT TRIGGER fail_doomed AFTER INSERT ON audit_events DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW WHEN (NEW.details->>'name' = 'Doomed') EXECUTE FUNCTION fail_doomed();`);
    try {
      // A forced database fault is a 500, which the OpenAPI document rightly does not list: asked unchecked.
      const res = await request(h.t.server).post('/v1/glossaries').set(org.auth).send({ name: 'Doomed' });
      expect(res.status).toBe(500);
    } finally {
      await h.t.db.query(`DROP TRIGGER fail_doomed ON audit_events; DROP FUNCTION fail_doomed();`);
    }
    expect((await http().get('/v1/glossaries').set(org.auth).expect(200)).body.items).toEqual([]);
    expect(await audit(org, { action: 'glossary.created' })).toEqual([]);
    await http().post('/v1/glossaries').set(org.auth).send({ name: 'Kept' }).expect(201);
    expect(await audit(org, { action: 'glossary.created' })).toHaveLength(1);
  });

  it('is append-only: the database refuses UPDATE, DELETE and TRUNCATE', async () => {
    const org = await organization();
    const [event] = await audit(org, { limit: 1 });
    await expect(h.t.db.query(`UPDATE audit_events SET action = 'forged' WHERE id = $1`, [event.id])).rejects.toThrow(/append-only/);
    await expect(h.t.db.query(`DELETE FROM audit_events WHERE id = $1`, [event.id])).rejects.toThrow(/append-only/);
    await expect(h.t.db.query(`TRUNCATE audit_events`)).rejects.toThrow(/append-only/);
    expect((await audit(org, { limit: 1 }))[0]).toEqual(event);
  });

  it('retention deletes only events older than AUDIT_RETENTION_DAYS (400 by default)', async () => {
    const org = await organization();
    const old = (days: number) =>
      h.t.db.query(
        `INSERT INTO audit_events (organization_id, occurred_at, action, actor_type, target_type, target_id)
         VALUES ($1::uuid, now() - make_interval(days => $2), 'credit.granted', 'operator', 'organization', $1::text) RETURNING id`,
        [org.organizationId, days],
      ) as Promise<{ id: string }[]>;
    const [[expired], [kept]] = [await old(401), await old(399)];
    expect(await h.t.app.get(AuditLogService).deleteExpired()).toBeGreaterThanOrEqual(1);
    const ids = (await audit(org)).map((event) => event.id);
    expect(ids).toContain(kept.id);
    expect(ids).not.toContain(expired.id);
    expect(ids.length).toBeGreaterThan(1); // the key the factory made is still there
  });

  it('filters by action, actor, target and time, and validates the query like other lists', async () => {
    const org = await organization();
    const mate = await createTeammate(h.t, org, 'admin');
    secrets.push(mate.apiKey);
    // `since` is given in whole milliseconds: the teammate's key event must fall in an earlier one.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const start = new Date().toISOString();
    const room = await createRoom(h, org);
    await http().post('/v1/glossaries').set(mate.auth).send({ name: 'Mate' }).expect(201);
    const end = new Date(Date.now() + 1000).toISOString();

    expect((await audit(org, { target_id: room.id.toUpperCase() })).map((e) => e.action)).toEqual(['room.created']);
    expect((await audit(org, { actor_user_id: mate.userId, since: start })).map((e) => e.action)).toEqual(['glossary.created']);
    expect((await audit(org, { since: start, until: end })).map((e) => e.action)).toEqual(['glossary.created', 'room.created']);
    expect(await audit(org, { until: start, action: 'room.created' })).toEqual([]);
    const page = (await http().get('/v1/audit-events').query({ limit: 1, since: start }).set(org.auth).expect(200)).body;
    expect(page).toMatchObject({ limit: 1, offset: 0, next_offset: 1 });

    const bad = await http()
      .get('/v1/audit-events')
      .query({ limit: 0, action: 'room.exploded', actor_user_id: 'me', since: 'yesterday', until: '2026-01-01T00:00:00' })
      .set(org.auth);
    expect(bad.status).toBe(422);
    expect((bad.body.detail as { loc: string[]; type: string }[]).map((issue) => [issue.loc.join('.'), issue.type])).toEqual([
      ['query.limit', 'greater_than_equal'],
      ['query.action', 'enum'],
      ['query.actor_user_id', 'uuid_parsing'],
      ['query.since', 'datetime_parsing'],
      ['query.until', 'datetime_parsing'],
    ]);
    const backwards = await http().get('/v1/audit-events').query({ since: end, until: start }).set(org.auth);
    expect(backwards.status).toBe(422);
    expect(backwards.body.detail[0]).toMatchObject({ loc: ['query', 'until'], type: 'value_error' });
  });

  it('never shows another organization’s events, whatever the filter', async () => {
    const a = await organization();
    const b = await organization();
    const room = await createRoom(h, a);
    expect((await audit(a, { target_id: room.id })).length).toBe(1);
    expect(await audit(b, { target_id: room.id })).toEqual([]);
    expect(await audit(b, { actor_user_id: a.userId })).toEqual([]);
    const seen = (await audit(b)).map((event) => event.target.id);
    expect(seen).not.toContain(room.id);
    expect(seen).not.toContain(a.organizationId);
    // A developer holds no audit:read.
    const developer = await createTeammate(h.t, a, 'developer');
    secrets.push(developer.apiKey);
    await http().get('/v1/audit-events').set(developer.auth).expect(403);
  });

  it('holds no secret in any row this run wrote: no API key, invitation token, invite code or webhook secret', async () => {
    const rows = (await h.t.db.query(`SELECT row_to_json(a)::text AS text FROM audit_events a`)) as { text: string }[];
    expect(rows.length).toBeGreaterThan(50);
    expect(secrets.length).toBeGreaterThan(10);
    const leaks = rows.filter(
      (row) => secrets.some((secret) => row.text.includes(secret)) || /trk_\w{40}|whsec_|inv_\w{20}/.test(row.text),
    );
    expect(leaks).toEqual([]);
    expect(rows.some((row) => row.text.includes('token=abc'))).toBe(false);
  });
});
