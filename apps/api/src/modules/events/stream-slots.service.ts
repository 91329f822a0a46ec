import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { createRequestRedisConnection } from '../../common/redis/redis-connection';

/**
 * Takes a slot when fewer than the limit are held: slots whose holder stopped renewing them (a process
 * that died) lapse. KEYS[1]: the organization's slots; ARGV: now, lapse time, limit, slot.
 */
const TAKE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
redis.call('PEXPIREAT', KEYS[1], ARGV[2])
return 1`;

// Every holder renews for the same span, so the newest renewal lapses last: the key lives as long as it.
const RENEW = `
if redis.call('ZSCORE', KEYS[1], ARGV[2]) then
  redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
  redis.call('PEXPIREAT', KEYS[1], ARGV[1])
end
return 1`;

/** A slot held by one open stream. */
export interface StreamSlot {
  renew(): Promise<void>;
  release(): Promise<void>;
}

/**
 * The organization's open event streams, counted across processes in Redis (`EVENT_STREAMS_PER_ORGANIZATION`):
 * each stream holds a slot it renews with every heartbeat; a slot not renewed for three heartbeats lapses.
 */
@Injectable()
export class StreamSlotsService implements OnApplicationShutdown {
  private readonly redis: Redis;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.redis = createRequestRedisConnection(config.redisUrl, 'event-streams', config.timeouts.redisCommandMs);
  }

  /** A slot, or null when the organization holds the limit already. */
  async take(organizationId: string): Promise<StreamSlot | null> {
    const key = `${this.config.queuePrefix}:event-streams:${organizationId}`;
    const slot = randomUUID();
    const taken = await this.redis.eval(TAKE, 1, key, Date.now(), this.lapse(), this.config.events.streamsPerOrganization, slot);
    if (taken !== 1) return null;
    return {
      renew: async () => {
        await this.redis.eval(RENEW, 1, key, this.lapse(), slot);
      },
      release: async () => {
        await this.redis.zrem(key, slot);
      },
    };
  }

  /** After the streams ended (before the HTTP server closed): their slots' releases are sent first. */
  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  private lapse(): number {
    return Date.now() + 3 * this.config.events.heartbeatMs;
  }
}
