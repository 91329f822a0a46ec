import pg from 'pg';
import { deleteRedisKeys } from '../../../../scripts/services.mjs';

/**
 * Removes the Redis keys of the run's queue prefixes (`trk_test_<run>_…`) that a test left (a test app
 * removes its own on close) and checks none remain; how many were left over, by prefix.
 */
async function removeQueueKeys(redisUrl, runId) {
  const pattern = `trk_test_${runId}_*`;
  const left = new Map();
  for (const key of await deleteRedisKeys(redisUrl, pattern)) {
    const prefix = key.split(':')[0];
    left.set(prefix, (left.get(prefix) ?? 0) + 1);
  }
  const remaining = (await deleteRedisKeys(redisUrl, pattern, { dryRun: true })).length;
  if (remaining > 0) throw new Error(`${remaining} Redis keys of this run's queue prefixes remain after the cleanup`);
  return left;
}

/** Drops every database this run created and its Redis keys, then stops services the run itself started. */
export default async function globalTeardown() {
  const { baseUrl, runId, redisUrl } = globalThis.__TEMPLATE__ ?? {};
  if (redisUrl && runId) {
    const left = await removeQueueKeys(redisUrl, runId);
    if (left.size > 0) {
      const list = [...left].map(([prefix, count]) => `${prefix} (${count})`).join(', ');
      process.stderr.write(`\nRedis keys left by tests outside a test app's close, now removed: ${list}\n`);
    }
  }
  if (baseUrl && runId) {
    const admin = new URL(baseUrl);
    admin.pathname = '/postgres';
    const client = new pg.Client({ connectionString: admin.toString() });
    await client.connect();
    const { rows } = await client.query(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [`trk_test_%${runId}%`]);
    for (const { datname } of rows) {
      await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    }
    await client.end();
  }
  for (const service of globalThis.__SERVICES__ ?? []) await service.stop();
}
