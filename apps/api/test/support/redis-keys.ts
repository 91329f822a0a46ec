import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';

/** A BullMQ prefix of this test run (`trk_test_<run>_…`): what a test leaves under it, global teardown removes. */
export function testQueuePrefix(): string {
  return `trk_test_${process.env.TEST_RUN_ID ?? 'norun'}_${randomBytes(4).toString('hex')}`;
}

/**
 * Every key of `prefix` (queues, rate limits), SCAN then DEL; how many there were. The same as
 * scripts/services.mjs deleteRedisKeys, which the tests (compiled to CommonJS) cannot load: it is an ES module.
 */
export async function deleteKeysOf(redisUrl: string, prefix: string, { dryRun = false } = {}): Promise<number> {
  const client = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await client.connect();
  let count = 0;
  try {
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      count += keys.length;
      if (keys.length && !dryRun) await client.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    client.disconnect();
  }
  return count;
}
