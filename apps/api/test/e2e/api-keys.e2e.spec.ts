import { PERMISSIONS } from '@app/domain';
import { PAGE_QUERY_REJECTIONS } from '../support/page-query-rejections';
import { createOrganization, createTeammate } from '../support/factories';
import { startTestApp, type TestApp } from '../support/test-app';

describe('API keys', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t.close());

  it('creates a key that authenticates, is listed without its secret, and stops working once revoked', async () => {
    const org = await createOrganization(t);
    const created = await t.http().post('/v1/api-keys').set(org.auth).send({ name: 'CI deploys' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'CI deploys',
      key_prefix: created.body.key.slice(0, 8),
      key_last4: created.body.key.slice(-4),
      created_at: expect.any(String),
      last_used_at: null,
      created_by: org.email,
      key: expect.stringMatching(/^trk_[0-9A-Za-z]{32,}$/),
      // Without scopes, every permission of the creator's role (an owner's: all); without expires_at, never.
      scopes: [...PERMISSIONS],
      expires_at: null,
    });
    const secret: string = created.body.key;

    const me = await t
      .http()
      .get('/v1/users/me')
      .set({ Authorization: `Bearer ${secret}` });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(org.userId);

    const list = await t.http().get('/v1/api-keys').set(org.auth);
    expect(list.status).toBe(200);
    const listed = list.body.items.find((k: { id: string }) => k.id === created.body.id);
    expect(listed).toBeDefined();
    expect(listed.key).toBeUndefined();
    expect(JSON.stringify(list.body)).not.toContain(secret);
    expect(listed.last_used_at).not.toBeNull();
    expect(Object.keys(listed).sort()).toEqual([
      'created_at',
      'created_by',
      'expires_at',
      'id',
      'key_last4',
      'key_prefix',
      'last_used_at',
      'name',
      'scopes',
    ]);

    const revoked = await t.http().delete(`/v1/api-keys/${created.body.id}`).set(org.auth);
    expect(revoked.status).toBe(204);
    expect(revoked.text).toBe('');
    const after = await t
      .http()
      .get('/v1/users/me')
      .set({ Authorization: `Bearer ${secret}` });
    expect(after.status).toBe(401);
    expect(after.headers['www-authenticate']).toBe('Bearer');
    const again = await t.http().delete(`/v1/api-keys/${created.body.id}`).set(org.auth);
    expect(again.status).toBe(404);
    const listAfter = await t.http().get('/v1/api-keys').set(org.auth);
    expect(listAfter.body.items.map((k: { id: string }) => k.id)).not.toContain(created.body.id);
  });

  it('keeps last_used_at null until the key is first used', async () => {
    const org = await createOrganization(t);
    const created = await t.http().post('/v1/api-keys').set(org.auth).send({ name: 'unused' });
    const list = await t.http().get('/v1/api-keys').set(org.auth);
    expect(list.body.items.find((k: { id: string }) => k.id === created.body.id).last_used_at).toBeNull();
  });

  it('writes last_used_at at most once a minute', async () => {
    const org = await createOrganization(t);
    const created = await t.http().post('/v1/api-keys').set(org.auth).send({ name: 'used' });
    const auth = { Authorization: `Bearer ${created.body.key}` };
    const lastUsed = async () =>
      (await t.http().get('/v1/api-keys').set(org.auth)).body.items.find((k: { id: string }) => k.id === created.body.id).last_used_at as
        string | null;
    await t.http().get('/v1/users/me').set(auth).expect(200);
    const first = await lastUsed();
    expect(first).not.toBeNull();
    await t.http().get('/v1/users/me').set(auth).expect(200);
    expect(await lastUsed()).toBe(first);
    // A minute later (moved back in time rather than waited for), the next use is written.
    await t.db.query(`UPDATE api_keys SET last_used_at = last_used_at - interval '61 seconds' WHERE id = $1`, [created.body.id]);
    const aged = await lastUsed();
    await t.http().get('/v1/users/me').set(auth).expect(200);
    const second = await lastUsed();
    expect(new Date(second!).getTime()).toBeGreaterThan(new Date(aged!).getTime() + 60_000);
  });

  it("lists teammates' keys and never another organization's", async () => {
    const org = await createOrganization(t);
    const mate = await createTeammate(t, org);
    const stranger = await createOrganization(t);
    await t.http().post('/v1/api-keys').set(mate.auth).send({ name: 'mate key' });
    await t.http().post('/v1/api-keys').set(stranger.auth).send({ name: 'stranger key' });

    const list = await t.http().get('/v1/api-keys').set(org.auth);
    const names = list.body.items.map((k: { name: string }) => k.name);
    expect(names).toContain('mate key');
    expect(names).toContain('teammate key');
    expect(names).not.toContain('stranger key');
    expect(list.body.items.find((k: { name: string }) => k.name === 'mate key').created_by).toBe(mate.email);
  });

  it("answers 404 for revoking another organization's key and leaves it working", async () => {
    const org = await createOrganization(t);
    const stranger = await createOrganization(t);
    const [strangerKey] = (await t.db.query(`SELECT id FROM api_keys WHERE organization_id = $1`, [stranger.organizationId])) as {
      id: string;
    }[];
    const res = await t.http().delete(`/v1/api-keys/${strangerKey.id}`).set(org.auth);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: expect.any(String) });
    expect((await t.http().get('/v1/users/me').set(stranger.auth)).status).toBe(200);
  });

  it('orders newest first with id as tie-breaker, and pages never skip or repeat under equal timestamps', async () => {
    const org = await createOrganization(t);
    for (let i = 0; i < 6; i++)
      await t
        .http()
        .post('/v1/api-keys')
        .set(org.auth)
        .send({ name: `k${i}` });
    await t.db.query(`UPDATE api_keys SET created_at = '2026-01-01T00:00:00Z' WHERE organization_id = $1`, [org.organizationId]);
    const all = await t.http().get('/v1/api-keys?limit=200').set(org.auth);
    expect(all.body.items).toHaveLength(7);
    const ids: string[] = all.body.items.map((k: { id: string }) => k.id);
    expect(ids).toEqual([...ids].sort().reverse());
    expect(all.body.next_offset).toBeNull();

    const paged: string[] = [];
    let offset: number | null = 0;
    while (offset !== null) {
      const page: { body: { limit: number; offset: number; items: { id: string }[]; next_offset: number | null } } = await t
        .http()
        .get(`/v1/api-keys?limit=2&offset=${offset}`)
        .set(org.auth);
      expect(page.body.limit).toBe(2);
      expect(page.body.offset).toBe(offset);
      paged.push(...page.body.items.map((k: { id: string }) => k.id));
      offset = page.body.next_offset;
    }
    expect(paged).toEqual(ids);
  });

  it('orders by creation time before id', async () => {
    const org = await createOrganization(t);
    const a = await t.http().post('/v1/api-keys').set(org.auth).send({ name: 'older' });
    const b = await t.http().post('/v1/api-keys').set(org.auth).send({ name: 'newer' });
    await t.db.query(`UPDATE api_keys SET created_at = '2026-01-01T00:00:00Z' WHERE id = $1`, [a.body.id]);
    await t.db.query(`UPDATE api_keys SET created_at = '2026-01-02T00:00:00Z' WHERE id = $1`, [b.body.id]);
    const list = await t.http().get('/v1/api-keys').set(org.auth);
    expect(list.body.items.map((k: { name: string }) => k.name)).toEqual(['factory key', 'newer', 'older']);
    expect(list.body).toMatchObject({ limit: 50, offset: 0, next_offset: null });
  });

  describe('validation', () => {
    it.each([
      [{}, { loc: ['body', 'name'], msg: 'Field required', type: 'missing', input: {}, ctx: {} }],
      [
        { name: '' },
        {
          loc: ['body', 'name'],
          msg: 'String should have at least 1 character',
          type: 'string_too_short',
          input: '',
          ctx: { min_length: 1 },
        },
      ],
      [
        { name: 'x'.repeat(121) },
        {
          loc: ['body', 'name'],
          msg: 'String should have at most 120 characters',
          type: 'string_too_long',
          input: 'x'.repeat(121),
          ctx: { max_length: 120 },
        },
      ],
      [{ name: 42 }, { loc: ['body', 'name'], msg: 'Input should be a valid string', type: 'string_type', input: 42, ctx: {} }],
      [{ name: null }, { loc: ['body', 'name'], msg: 'Input should be a valid string', type: 'string_type', input: null, ctx: {} }],
      [
        { name: 'a\u0000b' },
        {
          loc: ['body', 'name'],
          msg: "String should not contain the NUL character ('\\u0000')",
          type: 'string_pattern_mismatch',
          input: 'a\u0000b',
          ctx: { pattern: '[^\\x00]*' },
        },
      ],
      [
        { name: `${'a'.repeat(120)}\ufe0f` },
        {
          loc: ['body', 'name'],
          msg: 'String should have at most 120 characters',
          type: 'string_too_long',
          input: `${'a'.repeat(120)}\ufe0f`,
          ctx: { max_length: 120 },
        },
      ],
    ])('rejects the body %j with the exact 422 body and creates nothing', async (body, issue) => {
      const org = await createOrganization(t);
      const res = await t.http().post('/v1/api-keys').set(org.auth).send(body);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ detail: [issue] });
      const [{ count }] = (await t.db.query(`SELECT count(*)::int AS count FROM api_keys WHERE organization_id = $1`, [
        org.organizationId,
      ])) as {
        count: number;
      }[];
      expect(count).toBe(1);
    });

    it.each([42, true, 'x', '', null, [1]])(
      'rejects the JSON body %j, valid JSON but not an object, with model_attributes_type',
      async (body) => {
        const org = await createOrganization(t);
        const res = await t.http().post('/v1/api-keys').set(org.auth).set('Content-Type', 'application/json').send(JSON.stringify(body));
        expect(res.status).toBe(422);
        expect(res.body).toEqual({
          detail: [
            {
              loc: ['body'],
              msg: 'Input should be a valid dictionary or object to extract fields from',
              type: 'model_attributes_type',
              input: body,
              ctx: {},
            },
          ],
        });
      },
    );

    it('counts characters as code points: 60 letters each with a variation selector are 120 characters', async () => {
      const org = await createOrganization(t);
      const name = 'a\ufe0f'.repeat(60);
      const res = await t.http().post('/v1/api-keys').set(org.auth).send({ name });
      expect(res.status).toBe(201);
      expect(res.body.name).toBe(name);
    });

    it('accepts names of exactly 1 and 120 characters', async () => {
      const org = await createOrganization(t);
      expect((await t.http().post('/v1/api-keys').set(org.auth).send({ name: 'x' })).status).toBe(201);
      expect(
        (
          await t
            .http()
            .post('/v1/api-keys')
            .set(org.auth)
            .send({ name: 'y'.repeat(120) })
        ).status,
      ).toBe(201);
    });

    it.each(PAGE_QUERY_REJECTIONS)('rejects ?%s with every violated field listed', async (query, detail) => {
      const org = await createOrganization(t);
      const res = await t.http().get(`/v1/api-keys?${query}`).set(org.auth);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ detail });
    });

    it('answers an empty page for any offset past the end up to 2^53 - 1, and 422 beyond it', async () => {
      const org = await createOrganization(t);
      for (const offset of ['2147483647', '2147483648', '4294967296', '9007199254740991']) {
        for (const limit of ['1', '200']) {
          const res = await t.http().get(`/v1/api-keys?limit=${limit}&offset=${offset}`).set(org.auth);
          expect({ offset, limit, status: res.status }).toEqual({ offset, limit, status: 200 });
          expect(res.body).toEqual({ items: [], limit: Number(limit), offset: Number(offset), next_offset: null });
        }
      }
      expect((await t.http().get('/v1/api-keys?offset=0').set(org.auth)).body.items.length).toBeGreaterThan(0);
      for (const offset of ['9007199254740992', '100000000000000000000']) {
        const res = await t.http().get(`/v1/api-keys?offset=${offset}`).set(org.auth);
        expect(res.status).toBe(422);
        expect(res.body.detail).toEqual([expect.objectContaining({ loc: ['query', 'offset'], input: offset })]);
      }
    });

    it('accepts the bounds 1 and 200', async () => {
      const org = await createOrganization(t);
      expect((await t.http().get('/v1/api-keys?limit=1&offset=0').set(org.auth)).body).toMatchObject({
        limit: 1,
        offset: 0,
        next_offset: null,
      });
      expect((await t.http().get('/v1/api-keys?limit=200').set(org.auth)).status).toBe(200);
    });

    it('rejects a malformed key id on revoke with uuid_parsing', async () => {
      const org = await createOrganization(t);
      const res = await t.http().delete('/v1/api-keys/not-a-uuid').set(org.auth);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        detail: [{ loc: ['path', 'key_id'], msg: 'Input should be a valid UUID', type: 'uuid_parsing', input: 'not-a-uuid', ctx: {} }],
      });
    });
  });
});
