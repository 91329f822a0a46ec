import { issueKinds } from '../support/issue-kinds';
import { createOrganization, type TestOrganization } from '../support/factories';
import { startTestApp, type TestApp } from '../support/test-app';

describe('error model', () => {
  let t: TestApp;
  let org: TestOrganization;
  beforeAll(async () => {
    t = await startTestApp();
    org = await createOrganization(t);
  });
  afterAll(async () => t.close());

  it('answers an unknown route with a 404 detail body', async () => {
    const res = await t.http().get('/v1/nothing-here').set(org.auth);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'There is no endpoint at this path.' });
  });

  it.each([
    ['put', '/v1/rooms', 'GET, HEAD, POST', 'PUT is not allowed on this path; use GET or POST.'],
    ['post', '/v1/users/me', 'GET, HEAD', 'POST is not allowed on this path; use GET.'],
    ['get', '/v1/billing/checkout', 'POST', 'GET is not allowed on this path; use POST.'],
    [
      'patch',
      '/v1/rooms/00000000-0000-4000-8000-000000000000',
      'DELETE, GET, HEAD',
      'PATCH is not allowed on this path; use DELETE or GET.',
    ],
  ])('answers %s %s, a path served with other methods, 405 with Allow: %s', async (method, path, allow, detail) => {
    for (const auth of [org.auth, {}]) {
      const res = await t.http()[method as 'get'](path).set(auth);
      expect({ status: res.status, allow: res.headers.allow, body: res.body }).toEqual({ status: 405, allow, body: { detail } });
    }
  });

  it('answers 405 on the documentation routes, served beside the controllers', async () => {
    for (const path of ['/openapi.json', '/docs']) {
      const res = await t.http().post(path);
      expect({ status: res.status, allow: res.headers.allow }).toEqual({ status: 405, allow: 'GET, HEAD' });
    }
  });

  it('answers an unknown route without credentials with 404 too', async () => {
    const res = await t.http().post('/nope');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'There is no endpoint at this path.' });
  });

  it('answers malformed JSON with a 422 json_invalid entry', async () => {
    const res = await t.http().post('/v1/api-keys').set(org.auth).set('Content-Type', 'application/json').send('{"name": ');
    expect(res.status).toBe(422);
    expect(res.body.detail).toHaveLength(1);
    expect(res.body.detail[0]).toEqual({
      loc: ['body'],
      msg: 'JSON decode error',
      type: 'json_invalid',
      input: {},
      ctx: { error: expect.any(String) },
    });
    const keys = await t.http().get('/v1/api-keys').set(org.auth);
    expect(keys.body.items).toHaveLength(1);
  });

  it('answers a body that is not JSON before checking credentials, and a bad JSON body after them', async () => {
    const notJson = await t.http().post('/v1/api-keys').set('Content-Type', 'application/json').send('{"name": ');
    expect(notJson.status).toBe(422);
    expect(notJson.body.detail).toEqual([expect.objectContaining({ loc: ['body'], type: 'json_invalid' })]);
    const badBody = await t.http().post('/v1/api-keys').send({ name: '' });
    expect(badBody.status).toBe(401);
    expect(badBody.headers['www-authenticate']).toMatch(/^Bearer/);
  });

  it.each([
    ['text/plain', '{"name": "sent as text"}'],
    ['application/x-www-form-urlencoded', 'name=form'],
    ['application/xml', '<name>xml</name>'],
  ])('answers a %s body with 422 model_attributes_type and creates nothing', async (type, body) => {
    const before = (await t.http().get('/v1/api-keys').set(org.auth)).body.items.length as number;
    const res = await t.http().post('/v1/api-keys').set(org.auth).set('Content-Type', type).send(body);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      {
        loc: ['body'],
        msg: 'Input should be a valid dictionary or object to extract fields from',
        type: 'model_attributes_type',
        input: body,
        ctx: {},
      },
    ]);
    expect((await t.http().get('/v1/api-keys').set(org.auth)).body.items).toHaveLength(before);
  });

  it('takes a request without a body, or with an empty one, as an empty object', async () => {
    for (const type of [null, 'application/json', 'text/plain']) {
      const req = t.http().post('/v1/api-keys').set(org.auth);
      const res = await (type ? req.set('Content-Type', type).send('') : req);
      expect({ type, status: res.status, detail: res.body.detail }).toEqual({
        type,
        status: 422,
        detail: [{ loc: ['body', 'name'], msg: 'Field required', type: 'missing', input: {}, ctx: {} }],
      });
    }
  });

  it('answers a body nested thousands of levels deep with 422, not a server error', async () => {
    const deep = `{"name": ${'['.repeat(5_000)}${']'.repeat(5_000)}}`;
    const res = await t.http().post('/v1/api-keys').set(org.auth).set('Content-Type', 'application/json').send(deep);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      { loc: ['body'], msg: 'JSON decode error', type: 'json_invalid', input: {}, ctx: { error: 'nested deeper than 64 levels' } },
    ]);
    const fine = `{"name": "x", "extra": ${'['.repeat(60)}${']'.repeat(60)}}`;
    expect((await t.http().post('/v1/api-keys').set(org.auth).set('Content-Type', 'application/json').send(fine)).status).toBe(201);
  });

  it('answers a JSON array body with model_attributes_type', async () => {
    const res = await t
      .http()
      .post('/v1/api-keys')
      .set(org.auth)
      .send([{ name: 'x' }]);
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['body'], type: 'model_attributes_type' });
  });

  it('lists every violated field of the path and the body together, path first', async () => {
    const res = await t.http().post('/v1/rooms/not-a-uuid/invites').set(org.auth).send({ max_uses: 0 });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      { loc: ['path', 'room_id'], msg: 'Input should be a valid UUID', type: 'uuid_parsing', input: 'not-a-uuid', ctx: {} },
      { loc: ['body', 'expires_in_seconds'], msg: 'Field required', type: 'missing', input: { max_uses: 0 }, ctx: {} },
      {
        loc: ['body', 'max_uses'],
        msg: 'Input should be greater than or equal to 1',
        type: 'greater_than_equal',
        input: 0,
        ctx: { ge: 1 },
      },
    ]);
  });

  it('lists a bad path and a bad body of a join token together, fields in schema order', async () => {
    const name = 'r'.repeat(129);
    const res = await t
      .http()
      .post(`/v1/rooms/${name}/token`)
      .set(org.auth)
      .send({ identity: 'i'.repeat(129), languages: ['xx'] });
    expect(res.status).toBe(422);
    expect(issueKinds(res)).toEqual([
      ['path.room_name', 'string_too_long'],
      ['body.languages.0', 'unsupported_language'],
      ['body.identity', 'string_too_long'],
    ]);
  });

  it('answers health checks without credentials', async () => {
    expect((await t.http().get('/health/live')).status).toBe(200);
    const ready = await t.http().get('/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.info).toEqual({ postgres: { status: 'up' }, redis: { status: 'up' } });
  });
});
