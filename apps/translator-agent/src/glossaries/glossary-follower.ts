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
 * Follows one room's glossaries in its job process: `start` subscribes and reads the current ones,
 * then every announced change is read; each newer version is handed to `onChange`, in order. After a
 * lost connection it reads again once subscribed, so a change announced meanwhile is not missed.
 */
export class GlossaryFollower {
  private readonly connection: Redis;
  private readonly subscriber: Redis;
  private readonly store: RoomGlossariesStore;
  private version = -1;
  private reading: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(private readonly options: GlossaryFollowerOptions) {
    const redisOptions = { maxRetriesPerRequest: null, connectionName: 'translator-agent-glossaries' };
    this.connection = new IORedis(options.redisUrl, redisOptions);
    this.subscriber = new IORedis(options.redisUrl, redisOptions);
    this.store = new RoomGlossariesStore(this.connection, options.prefix);
    for (const redis of [this.connection, this.subscriber]) redis.on('error', (error) => options.onError?.(error));
  }

  /**
   * Resolves once subscribed and the current glossaries (if any were delivered) were handed on.
   * While Redis cannot be reached it waits; the caller decides how long to wait before going on.
   */
  async start(): Promise<void> {
    this.subscriber.on('message', (_channel: string, roomId: string) => {
      if (roomId === this.options.roomId) void this.refresh();
    });
    await this.subscriber.subscribe(this.store.channel);
    // Every later (re)subscription reads again: what changed while unsubscribed was announced to nobody.
    this.subscriber.on('ready', () => void this.refresh());
    await this.refresh();
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.reading;
    this.subscriber.disconnect();
    this.connection.disconnect();
  }

  /** Reads one at a time, so versions are handed on in order. */
  private refresh(): Promise<void> {
    this.reading = this.reading.then(async () => {
      if (this.closed) return;
      try {
        const current = await this.store.read(this.options.roomId);
        if (!current || current.version <= this.version || this.closed) return;
        this.version = current.version;
        this.options.onChange(current);
      } catch (error) {
        this.options.onError?.(error);
      }
    });
    return this.reading;
  }
}
