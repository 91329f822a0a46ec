import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

// Claims a generation unless a newer one was applied; an equal one is a retry or a duplicate.
const CLAIM = `
local current = tonumber(redis.call('GET', KEYS[1]) or '-1')
local generation = tonumber(ARGV[1])
if generation < current then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1`;

const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/** Long enough to outlive any room (the longest empty timeout is 30 days). */
const GENERATION_TTL_MS = 35 * 24 * 3600 * 1000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Per-room serialization and staleness for presence jobs, settled in Redis so any number of agent
 * processes agree: one job of a room runs at a time (a lock), and a job older than the newest
 * generation applied is dropped (an atomic compare-and-set).
 */
export class RoomGuard {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly lockTtlMs = 30_000,
    private readonly lockWaitMs = 10_000,
  ) {}

  private key(kind: 'generation' | 'lock', roomId: string): string {
    return `${this.prefix}:translator-presence:${kind}:${roomId}`;
  }

  /** Runs `fn` holding the room's lock; throws when the lock cannot be had in time (the job retries). */
  async withRoomLock<T>(roomId: string, fn: () => Promise<T>): Promise<T> {
    const token = randomUUID();
    const key = this.key('lock', roomId);
    const deadline = Date.now() + this.lockWaitMs;
    let delay = 10;
    while ((await this.redis.set(key, token, 'PX', this.lockTtlMs, 'NX')) !== 'OK') {
      if (Date.now() > deadline) throw new Error(`room ${roomId} is busy with another presence job`);
      await sleep(delay);
      delay = Math.min(delay * 2, 200);
    }
    try {
      return await fn();
    } finally {
      await this.redis.eval(RELEASE, 1, key, token);
    }
  }

  /** True when `generation` is the newest seen for the room (and is now recorded); false when stale. */
  async claim(roomId: string, generation: number): Promise<boolean> {
    const result = await this.redis.eval(CLAIM, 1, this.key('generation', roomId), String(generation), String(GENERATION_TTL_MS));
    return result === 1;
  }

  async latest(roomId: string): Promise<number | null> {
    const value = await this.redis.get(this.key('generation', roomId));
    return value === null ? null : Number(value);
  }
}
