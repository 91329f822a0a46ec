import { createOrganization, createTeammate, type TestOrganization } from '../support/factories';
import { startIdentityProviderDouble, type IdentityProviderDouble } from '../support/jwks-double';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * Teams through HTTP: members and their roles with the owner rules, invitations accepted by the invited
 * session once, the acting organization of a session, and what removing or demoting a member does at once.
 */
describe('members and invitations', () => {
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

  let people = 0;
  /** A person signed in through the identity provider: their own organization is made on first use. */
  async function session(email = `person-${++people}-${process.pid}@example.test`, verified = true) {
    const token = await idp.sign({ sub: `sub-${email}`, email, email_verified: verified });
    const auth = { Authorization: `Bearer ${token}` };
    await t.http().get('/v1/users/me').set(auth).expect(200);
    return { email, auth };
  }

  async function invite(org: TestOrganization, email: string, role = 'developer') {
    const res = await t.http().post('/v1/member-invitations').set(org.auth).send({ email, role }).expect(201);
    return res.body as { id: string; invitation_token: string; email: string; role: string; expires_at: string };
  }

  it('invites a colleague who accepts with their session and then acts in the organization with the role given', async () => {
    const org = await createOrganization(t);
    const grace = await session();
    const invitation = await invite(org, grace.email.toUpperCase(), 'developer');
    expect(invitation).toMatchObject({
      email: grace.email.toUpperCase(),
      role: 'developer',
      invitation_token: expect.stringMatching(/^inv_/),
    });
    expect(Date.parse(invitation.expires_at) - Date.now()).toBeGreaterThan(6.9 * 86_400_000);
    const pending = (await t.http().get('/v1/member-invitations').set(org.auth).expect(200)).body;
    expect(pending.items.map((i: { id: string }) => i.id)).toContain(invitation.id);
    expect(JSON.stringify(pending)).not.toContain(invitation.invitation_token);

    const accepted = await t
      .http()
      .post('/v1/member-invitations/accept')
      .set(grace.auth)
      .send({ invitation_token: invitation.invitation_token })
      .expect(200);
    expect(accepted.body).toMatchObject({ organization_id: org.organizationId, role: 'developer' });

    const mine = (await t.http().get('/v1/users/me/organizations').set(grace.auth).expect(200)).body as {
      organization_id: string;
      role: string;
    }[];
    expect(mine.map((m) => [m.role, m.organization_id === org.organizationId])).toEqual([
      ['owner', false],
      ['developer', true],
    ]);
    // Without Organization-Id a session acts in its oldest membership; with it, in the organization named.
    const inOrg = { ...grace.auth, 'Organization-Id': org.organizationId };
    await t.http().post('/v1/api-keys').set(inOrg).send({ name: 'dev key' }).expect(201);
    const refused = await t.http().post('/v1/billing/checkout').set(inOrg).send({ amount_cents: 1000 });
    expect(refused.status).toBe(403);
    const members = (await t.http().get('/v1/members').set(org.auth).expect(200)).body.items as { email: string; role: string }[];
    expect(members.map((m) => [m.email, m.role])).toEqual([
      [org.email, 'owner'],
      [grace.email, 'developer'],
    ]);
    // An organization the session does not belong to is 404, whatever it holds.
    const other = await createOrganization(t);
    expect(
      (
        await t
          .http()
          .get('/v1/rooms')
          .set({ ...grace.auth, 'Organization-Id': other.organizationId })
      ).status,
    ).toBe(404);
    expect(
      (
        await t
          .http()
          .get('/v1/rooms')
          .set({ ...grace.auth, 'Organization-Id': 'not-a-uuid' })
      ).status,
    ).toBe(404);
  });

  it('refuses another email (403), an unverified one (403), an API key (403), and a used, revoked or expired one (410)', async () => {
    const org = await createOrganization(t);
    const ada = await session();
    const eve = await session();
    const invitation = await invite(org, ada.email);
    const accept = (auth: Record<string, string>, token = invitation.invitation_token) =>
      t.http().post('/v1/member-invitations/accept').set(auth).send({ invitation_token: token });
    expect((await accept(eve.auth)).status).toBe(403);
    expect((await accept(org.auth)).status).toBe(403);
    const unverified = await session(`unverified-${process.pid}@example.test`, false);
    const forUnverified = await invite(org, unverified.email);
    expect((await accept(unverified.auth, forUnverified.invitation_token)).status).toBe(403);
    await accept(ada.auth).expect(200);
    expect((await accept(ada.auth)).status).toBe(410);

    const revoked = await invite(org, eve.email);
    await t.http().delete(`/v1/member-invitations/${revoked.id}`).set(org.auth).expect(204);
    expect((await accept(eve.auth, revoked.invitation_token)).status).toBe(410);
    const expired = await invite(org, eve.email);
    await t.db.query(`UPDATE member_invitations SET expires_at = now() - interval '1 second' WHERE id = $1`, [expired.id]);
    expect((await accept(eve.auth, expired.invitation_token)).status).toBe(410);
    expect((await accept(eve.auth, 'inv_unknown')).status).toBe(404);
  });

  it('accepts an invitation once under 20 concurrent accepts', async () => {
    const org = await createOrganization(t);
    const kim = await session();
    const invitation = await invite(org, kim.email, 'viewer');
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        t.http().post('/v1/member-invitations/accept').set(kim.auth).send({ invitation_token: invitation.invitation_token }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, ...Array<number>(19).fill(410)]);
    const rows = (await t.db.query(`SELECT role FROM memberships WHERE organization_id = $1 AND role = 'viewer'`, [
      org.organizationId,
    ])) as unknown[];
    expect(rows).toHaveLength(1);
  });

  it('refuses to invite above the inviter’s role', async () => {
    const org = await createOrganization(t);
    const admin = await createTeammate(t, org, 'admin');
    const res = await t.http().post('/v1/member-invitations').set(admin.auth).send({ email: 'boss@example.test', role: 'owner' });
    expect(res.status).toBe(403);
  });

  it('keeps the owner rules: only owners touch owners, never zero owners', async () => {
    const org = await createOrganization(t);
    const admin = await createTeammate(t, org, 'admin');
    const dev = await createTeammate(t, org, 'developer');
    expect((await t.http().patch(`/v1/members/${org.userId}`).set(admin.auth).send({ role: 'viewer' })).status).toBe(403);
    expect((await t.http().patch(`/v1/members/${dev.userId}`).set(admin.auth).send({ role: 'owner' })).status).toBe(403);
    expect((await t.http().delete(`/v1/members/${org.userId}`).set(admin.auth)).status).toBe(403);
    expect((await t.http().patch(`/v1/members/${org.userId}`).set(org.auth).send({ role: 'admin' })).status).toBe(409);
    expect((await t.http().delete(`/v1/members/${org.userId}`).set(org.auth)).status).toBe(409);
    const promoted = await t.http().patch(`/v1/members/${admin.userId}`).set(org.auth).send({ role: 'owner' }).expect(200);
    expect(promoted.body).toMatchObject({ user_id: admin.userId, role: 'owner' });
    await t.http().patch(`/v1/members/${org.userId}`).set(admin.auth).send({ role: 'developer' }).expect(200);
    expect((await t.http().patch(`/v1/members/${dev.userId}`).set(admin.auth).send({ role: 'pope' })).status).toBe(422);
    expect((await t.http().patch(`/v1/members/00000000-0000-4000-8000-000000000000`).set(admin.auth).send({ role: 'viewer' })).status).toBe(
      404,
    );
  });

  it('revokes a removed member’s keys within the same second, and narrows a demoted member’s at once', async () => {
    const org = await createOrganization(t);
    const dev = await createTeammate(t, org, 'developer');
    await t.http().get('/v1/api-keys').set(dev.auth).expect(200);
    await t.http().patch(`/v1/members/${dev.userId}`).set(org.auth).send({ role: 'billing' }).expect(200);
    expect((await t.http().get('/v1/api-keys').set(dev.auth)).status).toBe(403);
    await t.http().get('/v1/billing/credit').set(dev.auth).expect(200);
    const removedAt = Date.now();
    await t.http().delete(`/v1/members/${dev.userId}`).set(org.auth).expect(204);
    expect((await t.http().get('/v1/users/me').set(dev.auth)).status).toBe(401);
    expect(Date.now() - removedAt).toBeLessThan(1000);
    const keys = (await t.db.query(`SELECT revoked_at FROM api_keys WHERE created_by_user_id = $1`, [dev.userId])) as {
      revoked_at: Date | null;
    }[];
    expect(keys.every((k) => k.revoked_at !== null)).toBe(true);
  });

  it('lets a member remove themselves, and then refuses their session in that organization', async () => {
    const org = await createOrganization(t);
    const zoe = await session();
    const invitation = await invite(org, zoe.email, 'viewer');
    const joined = await t
      .http()
      .post('/v1/member-invitations/accept')
      .set(zoe.auth)
      .send({ invitation_token: invitation.invitation_token })
      .expect(200);
    const inOrg = { ...zoe.auth, 'Organization-Id': org.organizationId };
    const me = (await t.http().get('/v1/users/me').set(inOrg).expect(200)).body as { id: string };
    expect(joined.body.organization_id).toBe(org.organizationId);
    await t.http().delete(`/v1/members/${me.id}`).set(inOrg).expect(204);
    expect((await t.http().get('/v1/rooms').set(inOrg)).status).toBe(404);
  });
});
