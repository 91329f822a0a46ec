import type { RoomGlossaries } from '@app/contracts';
import IORedis, { type Redis } from 'ioredis';
import { RoomGlossariesStore } from './room-glossaries-store';

export interface GlossaryFollowerOptions {
  redisUrl: string;
  prefix: string;
  roomId: string;
  /** Called with each newer version, in order, never twice for one version. */
  onChange: (glossaries: RoomGlossaries) => void;
  onError?: (error: unknown) => void;
}

/**
 * Follows one room's glossaries in its job process: `start` reads the current ones (what the room
 * starts with), then every announced change is read and handed on. After a lost connection it reads
 * again once subscribed, so a change announced meanwhile is not missed.
 */
export class GlossaryFollower {
  private readonly connection: Redis;
  private readonly subscriber: Redis;
  private readonly store: RoomGlossariesStore;
  private version = -1;
  private reading: Promise<void> = Promise.resolve();
  private started = false;
  private closed = false;

  constructor(private readonly options: GlossaryFollowerOptions) {
    const redisOptions = { maxRetriesPerRequest: null, connectionName: 'translator-agent-glossaries' };
    this.connection = new IORedis(options.redisUrl, redisOptions);
    this.subscriber = new IORedis(options.redisUrl, redisOptions);
    this.store = new RoomGlossariesStore(this.connection, options.prefix);
    for (const redis of [this.connection, this.subscriber]) redis.on('error', (error) => options.onError?.(error));
  }

  /** Subscribes and reads the room's current glossaries (null: none delivered yet, the room applies none). */
  async start(): Promise<RoomGlossaries | null> {
    this.subscriber.on('message', (_channel: string, roomId: string) => {
      if (roomId === this.options.roomId) this.refresh();
    });
    // Every (re)subscription reads again: what changed while unsubscribed was announced to nobody.
    this.subscriber.on('ready', () => this.refresh());
    await this.subscriber.subscribe(this.store.channel);
    const current = await this.store.read(this.options.roomId);
    if (current) this.version = current.version;
    this.started = true;
    // A change announced while that read was under way was dropped above: read once more.
    this.refresh();
    return current;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.reading;
    await Promise.all([this.subscriber.quit(), this.connection.quit()].map((quit) => quit.catch(() => undefined)));
  }

  /** Reads one at a time, so versions are handed on in order. */
  private refresh(): void {
    this.reading = this.reading.then(async () => {
      // Before `start` returns, its own read is what the room starts with.
      if (!this.started || this.closed) return;
      try {
        const current = await this.store.read(this.options.roomId);
        if (!current || current.version <= this.version || this.closed) return;
        this.version = current.version;
        this.options.onChange(current);
      } catch (error) {
        this.options.onError?.(error);
      }
    });
  }
}
