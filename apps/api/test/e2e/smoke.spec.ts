import { createOrganization } from '../support/factories';
import { startTestApp, type TestApp } from '../support/test-app';

describe('smoke', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t.close());

  it('answers /v1/users/me', async () => {
    const org = await createOrganization(t);
    const res = await t.http().get('/v1/users/me').set(org.auth);
    expect(res.status).toBe(200);
    expect(res.body.email).toBe(org.email);
  });
});
