import { Inject, Injectable, Logger, type BeforeApplicationShutdown } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { Actor } from '../../common/auth/actor';
import { ApiError } from '../../common/errors/api-error';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { EventFanoutService, type Subscription } from './event-fanout.service';
import { EventLogRepository, type LoggedEvent } from './event-log.repository';
import { StreamSlotsService, type StreamSlot } from './stream-slots.service';

/** What one stream asks for. */
export interface StreamRequest {
  /** Only these types (null: all). */
  types: Set<string> | null;
  roomId: string | null;
  /** Replay the events after this cursor first (null: from now on). */
  lastEventId: number | null;
}

const REPLAY_BATCH = 500;
/** What a client waits before reconnecting (the `retry:` field), and after a shutdown. */
const RECONNECT_MS = 2_000;
/** A client this far behind (bytes not yet taken by the socket) is closed: it reconnects with its last id. */
const MAX_BACKLOG_BYTES = 1 << 20;

/** One open stream: written to in cursor order, each event at most once. */
class OpenStream {
  /** The last cursor written or passed over (filtered out). */
  private sent = 0;
  private live = false;
  private readonly early: LoggedEvent[] = [];
  private ended = false;

  constructor(
    private readonly response: Response,
    private readonly filter: StreamRequest,
    private readonly onEnd: () => void,
  ) {}

  /** Events from the fan-out: held until the replay is written, then written at once. */
  receive(events: LoggedEvent[]): void {
    if (this.live) this.write(events);
    else this.early.push(...events);
  }

  /** The replay is written up to `sent`: what the fan-out brought meanwhile follows it. */
  goLive(): void {
    this.live = true;
    this.write(this.early.splice(0));
  }

  write(events: LoggedEvent[]): void {
    if (this.ended) return;
    let text = '';
    for (const event of events) {
      if (event.seq <= this.sent) continue;
      this.sent = event.seq;
      if (this.filter.types && !this.filter.types.has(event.type)) continue;
      if (this.filter.roomId && event.roomId !== this.filter.roomId) continue;
      text += `id: ${event.seq}\nevent: ${event.type}\ndata: ${event.body}\n\n`;
    }
    if (text !== '') this.send(text);
  }

  send(text: string): void {
    if (this.ended) return;
    this.response.write(text);
    if (this.response.writableLength > MAX_BACKLOG_BYTES) this.end();
  }

  get cursor(): number {
    return this.sent;
  }

  set cursor(value: number) {
    this.sent = value;
  }

  end(text = ''): void {
    if (this.ended) return;
    this.ended = true;
    this.response.end(text);
    this.onEnd();
  }
}

/**
 * `GET /v1/events/stream`: replays the organization's kept events after the client's cursor, then
 * goes live from the process's one fan-out, with no gap and no double in between; a comment line each
 * heartbeat; at most `EVENT_STREAMS_PER_ORGANIZATION` open; ended with a `retry:` hint at shutdown.
 */
@Injectable()
export class EventStreamsService implements BeforeApplicationShutdown {
  private readonly logger = new Logger(EventStreamsService.name);
  private readonly open = new Set<OpenStream>();

  constructor(
    private readonly fanout: EventFanoutService,
    private readonly log: EventLogRepository,
    private readonly slots: StreamSlotsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async stream(actor: Actor, wanted: StreamRequest, request: Request, response: Response): Promise<void> {
    const organizationId = actor.organizationId;
    const slot = await this.slots.take(organizationId);
    if (!slot) {
      const limit = this.config.events.streamsPerOrganization;
      throw new ApiError(
        429,
        `This organization has ${limit} event streams open, the most it may (EVENT_STREAMS_PER_ORGANIZATION): close one first.`,
        {
          'Retry-After': String(Math.ceil(this.config.events.heartbeatMs / 1000)),
        },
      );
    }
    let subscription: Subscription | null = null;
    let heartbeat: NodeJS.Timeout | null = null;
    const release = () => {
      subscription?.close();
      if (heartbeat) clearInterval(heartbeat);
      this.open.delete(stream);
      void slot.release().catch(() => undefined);
    };
    const stream = new OpenStream(response, wanted, release);
    try {
      subscription = await this.fanout.subscribe(organizationId, (events) => stream.receive(events));
      const start = await this.startAfter(organizationId, wanted.lastEventId, subscription.cursorAtStart);
      response.status(200);
      response.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
      response.setHeader('Cache-Control', 'no-cache, no-transform');
      response.setHeader('X-Accel-Buffering', 'no');
      response.flushHeaders();
      this.open.add(stream);
      response.on('close', () => stream.end());
      // A client gone while the stream was being opened: 'close' has been emitted already.
      if (response.destroyed) {
        stream.end();
        return;
      }
      // A stream that starts at now names where now is (an id with no data sets EventSource's last id),
      // so a client cut before its first event still resumes without a gap.
      stream.send(`retry: ${RECONNECT_MS}\n${wanted.lastEventId === null ? `id: ${start.after}\n` : ''}\n`);
      if (start.reset) stream.send(`event: reset\ndata: ${JSON.stringify({ detail: start.reset })}\n\n`);
      stream.cursor = start.after;
      heartbeat = setInterval(() => this.beat(stream, slot), this.config.events.heartbeatMs);
      heartbeat.unref();
      await this.replay(organizationId, stream, subscription.cursorAtStart);
      stream.goLive();
    } catch (error) {
      if (!response.headersSent) {
        release();
        throw error;
      }
      this.logger.warn(`An event stream of ${organizationId} ended early: ${(error as Error).message}`);
      stream.end();
    }
  }

  beforeApplicationShutdown(): void {
    for (const stream of [...this.open]) stream.end(`retry: ${RECONNECT_MS}\n\n`);
  }

  /** Where the stream starts: after the client's cursor, or from the start of the log if it is past retention, or from now. */
  private async startAfter(
    organizationId: string,
    lastEventId: number | null,
    now: number,
  ): Promise<{ after: number; reset: string | null }> {
    if (lastEventId === null) return { after: now, reset: null };
    const state = await this.log.cursorState(organizationId, lastEventId);
    // 0 is the start of the log; a cursor the log never reached back to is past retention only if older than what is kept.
    if (lastEventId === 0 || state.known || state.oldest === null || lastEventId >= state.oldest)
      return { after: lastEventId, reset: null };
    return {
      after: 0,
      reset: `Event ${lastEventId} is no longer kept (events are kept ${this.config.events.retentionDays} days): replaying every kept event.`,
    };
  }

  /** Writes the kept events after the stream's cursor, up to where the fan-out stood when it subscribed (and past it, if read). */
  private async replay(organizationId: string, stream: OpenStream, until: number): Promise<void> {
    while (stream.cursor < until) {
      const events = await this.log.after([{ organizationId, after: stream.cursor }], REPLAY_BATCH);
      if (events.length === 0) return;
      stream.write(events);
      if (events.length < REPLAY_BATCH) return;
    }
  }

  private beat(stream: OpenStream, slot: StreamSlot): void {
    stream.send(': keep-alive\n\n');
    void slot.renew().catch((error: Error) => this.logger.warn(`Could not renew an event stream's slot: ${error.message}`));
  }
}
