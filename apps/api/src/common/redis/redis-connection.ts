import IORedis, { type Redis } from 'ioredis';

/**
 * The connection requests use (queue producers, the readiness check): a command fails at once while
 * Redis is unreachable (no offline queue to pile up in) and after `commandTimeoutMs` when Redis does
 * not answer, so a request answers 503 instead of waiting for Redis to come back.
 */
export function createRequestRedisConnection(url: string, name: string, commandTimeoutMs: number): Redis {
  return new IORedis(url, {
    connectionName: name,
    lazyConnect: false,
    enableOfflineQueue: false,
    commandTimeout: commandTimeoutMs,
    maxRetriesPerRequest: 1,
  });
}

/** Workers block on Redis and wait for it to come back: BullMQ needs `maxRetriesPerRequest: null` and no command timeout. */
export function workerRedisConnection(requestConnection: Redis): Redis {
  return requestConnection.duplicate({ enableOfflineQueue: true, commandTimeout: undefined, maxRetriesPerRequest: null });
}
