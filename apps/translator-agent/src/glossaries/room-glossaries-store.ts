import type { RoomGlossaries } from '@app/contracts';
import type { Redis } from 'ioredis';

// Keeps a room's glossaries unless a newer version is already there, and tells its translator.
// An equal version is a duplicate or a retry: nothing changes and nobody is told.
const KEEP_IF_NEWER = `
local current = tonumber(redis.call('HGET', KEYS[1], 'version') or '-1')
if tonumber(ARGV[1]) <= current then return 0 end
redis.call('HSET', KEYS[1], 'version', ARGV[1], 'glossaries', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PUBLISH', KEYS[2], ARGV[4])
return 1`;

/** Long enough to outlive any room (the longest empty timeout is 30 days). */
const GLOSSARIES_TTL_MS = 35 * 24 * 3600 * 1000;

/**
 * The glossaries each live room's translator applies, kept in Redis by the presence consumer (from
 * translator.dispatch and translator.glossary jobs) and read by the room's job process, which may run
 * in another process or on another worker: a job started late, or restarted, reads the current ones.
 */
export class RoomGlossariesStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  /** The channel a change is announced on; the message is the room's id. */
  get channel(): string {
    return `${this.prefix}:translator:room-glossaries:changed`;
  }

  private key(roomId: string): string {
    return `${this.prefix}:translator:room-glossaries:${roomId}`;
  }

  /** Keeps `glossaries` for the room unless the same or a newer version is there; whether it was kept. */
  async keep(roomId: string, glossaries: RoomGlossaries): Promise<boolean> {
    const kept = await this.redis.eval(
      KEEP_IF_NEWER,
      2,
      this.key(roomId),
      this.channel,
      String(glossaries.version),
      JSON.stringify(glossaries),
      String(GLOSSARIES_TTL_MS),
      roomId,
    );
    return kept === 1;
  }

  /** The room's current glossaries; null when none were ever delivered (the room applies none). */
  async read(roomId: string): Promise<RoomGlossaries | null> {
    const stored = await this.redis.hget(this.key(roomId), 'glossaries');
    return stored === null ? null : (JSON.parse(stored) as RoomGlossaries);
  }
}
