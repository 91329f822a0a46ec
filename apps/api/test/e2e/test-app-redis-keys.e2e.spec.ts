import { createOrganization } from '../support/factories';
import { deleteKeysOf } from '../support/redis-keys';
import { startTestApp } from '../support/test-app';

describe('a test app', () => {
  it('removes the Redis keys of its queue prefix when it closes', async () => {
    const t = await startTestApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
    const { redisUrl, queuePrefix } = t.config;
    try {
      const org = await createOrganization(t);
      await t.http().get('/v1/users/me').set(org.auth).expect(200);
      await t.http().post('/v1/webhook-endpoints').set(org.auth).send({ url: 'http://127.0.0.1:9/hooks' }).expect(201);
      expect(await deleteKeysOf(redisUrl, queuePrefix, { dryRun: true })).toBeGreaterThan(0);
    } finally {
      await t.close();
    }
    expect(await deleteKeysOf(redisUrl, queuePrefix, { dryRun: true })).toBe(0);
  });
});
