import IORedis, { type Redis } from 'ioredis';

/** BullMQ needs `maxRetriesPerRequest: null` on every connection it blocks on. */
export function createRedisConnection(url: string, name: string): Redis {
  return new IORedis(url, { maxRetriesPerRequest: null, connectionName: name, lazyConnect: false });
}
