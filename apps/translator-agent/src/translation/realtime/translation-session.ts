import { WebSocket } from 'ws';
import { base64, concat } from './pcm16';
import { SessionRefused, transientOpeningError } from './session-refused';
import {
  REALTIME_CHUNK_MS,
  REALTIME_MODEL,
  REALTIME_SAMPLE_RATE,
  type TranslationClientEvent,
  type TranslationServerEvent,
} from './protocol';

export interface TranslationSessionOptions {
  /** `wss://api.openai.com/v1` or a stand-in's base. */
  baseUrl: string;
  apiKey: string;
  model?: string;
  /** The language translated speech and text come out in. */
  targetLanguage: string;
  /** Source-language transcript deltas (the speaker's captions) from this model; null: none. */
  inputTranscriptionModel: string | null;
  /** How long opening (connect, created, updated) may take. */
  openTimeoutMs?: number;
  /** No pong and no server event for this long after a ping: the provider stopped answering (the session is cut, `stalled`). */
  stallMs?: number;
}

export interface TranslationSessionEvents {
  inputText(delta: string): void;
  outputText(delta: string): void;
  outputAudio(samples: Int16Array, sampleRate: number): void;
  /** An `error` event the session survives (the protocol says most are recoverable). */
  error(error: Error): void;
  /**
   * The session ended: `closed` after `close()`; `dropped` when the connection went away by itself;
   * `stalled` when it was cut because the connection went unanswered (no pong, no event) for `stallMs`.
   */
  closed(how: 'closed' | 'dropped' | 'stalled'): void;
}

/** A pipeline's sessions: everything but the target language, which is per speaker. */
export type RealtimeSessionOptions = Omit<TranslationSessionOptions, 'targetLanguage'>;

/**
 * No pong to our pings and no server event for this long: the provider stopped answering. Built on the
 * WebSocket ping (RFC 6455 §5.5.2: an endpoint MUST answer a ping with a pong), not on the model's output:
 * the model may rightly stay quiet (noise, speech already in the target language) or stream silence.
 */
export const STALL_MS = 8000;
/** How often the connection is pinged (at most): a few pings fit in the stall time. */
const PING_EVERY_MS = 2000;
/** How long `close()` waits for `session.closed` beyond twice the output's lag behind the input. */
export const CLOSE_WAIT_MS = 5000;
/** `close()` never waits longer than this, however far the output lags. */
const MAX_CLOSE_WAIT_MS = 30_000;

/**
 * One realtime translation session over its WebSocket: opened and configured (target language, source
 * transcription), audio appended in 200 ms chunks as it comes, server deltas handed to `events`.
 */
export class TranslationSession {
  private readonly socket: WebSocket;
  private pending: Int16Array[] = [];
  private pendingSamples = 0;
  private closing = false;
  private stalled = false;
  private stallMs = STALL_MS;
  private pinger: NodeJS.Timeout | null = null;
  /** When the ping still unanswered was sent (null: none is; any event or pong answers it). */
  private pingedAt: number | null = null;
  /** Milliseconds of input audio appended so far: the clock the deltas' `elapsed_ms` counts in. */
  private sentMs = 0;
  /** How far the output trailed the input at its latest delta with `elapsed_ms` (0: never seen). */
  private outputLagMs = 0;
  private closedBy: (() => void) | null = null;

  private constructor(
    socket: WebSocket,
    private readonly events: TranslationSessionEvents,
  ) {
    this.socket = socket;
  }

  static open(options: TranslationSessionOptions, events: TranslationSessionEvents): Promise<TranslationSession> {
    const url = `${options.baseUrl.replace(/^http/, 'ws').replace(/\/$/, '')}/realtime/translations?model=${encodeURIComponent(options.model ?? REALTIME_MODEL)}`;
    const socket = new WebSocket(url, {
      headers: { Authorization: `Bearer ${options.apiKey}` },
      handshakeTimeout: options.openTimeoutMs ?? 10_000,
    });
    const session = new TranslationSession(socket, events);
    session.stallMs = options.stallMs ?? STALL_MS;
    return new Promise<TranslationSession>((resolve, reject) => {
      let state: 'opening' | 'open' | 'failed' = 'opening';
      const timeoutMs = options.openTimeoutMs ?? 10_000;
      const timer = setTimeout(() => fail(new SessionRefused(`no session.updated within ${timeoutMs} ms`)), timeoutMs);
      const fail = (error: Error) => {
        clearTimeout(timer);
        if (state !== 'opening') return;
        state = 'failed';
        socket.terminate();
        reject(error);
      };
      socket.on('unexpected-response', (_request, response) => {
        const status = response.statusCode ?? 0;
        const permanent = status >= 400 && status < 500 && status !== 408 && status !== 429;
        fail(new SessionRefused(`the translation endpoint answered HTTP ${status || '?'}`, permanent));
      });
      socket.on('error', (error) => (state === 'open' ? events.error(error) : fail(new SessionRefused(error.message))));
      socket.on('close', () => {
        session.stopPinging();
        session.closedBy?.();
        if (state === 'opening')
          fail(new SessionRefused('the translation endpoint closed the connection before the session was configured'));
        else if (state === 'open') events.closed(session.closing ? 'closed' : session.stalled ? 'stalled' : 'dropped');
      });
      socket.on('message', (data) => {
        let event: TranslationServerEvent;
        try {
          event = JSON.parse(String(data)) as TranslationServerEvent;
        } catch {
          return;
        }
        session.pingedAt = null;
        if (state === 'open') {
          session.dispatch(event);
          return;
        }
        if (state === 'failed') return;
        switch (event.type) {
          case 'session.created':
            session.send({
              type: 'session.update',
              session: {
                audio: {
                  input: { transcription: options.inputTranscriptionModel ? { model: options.inputTranscriptionModel } : null },
                  output: { language: options.targetLanguage },
                },
              },
            });
            return;
          case 'session.updated':
            clearTimeout(timer);
            state = 'open';
            session.startPinging();
            resolve(session);
            return;
          case 'error':
            fail(
              new SessionRefused(`${event.error.code ?? event.error.type}: ${event.error.message}`, !transientOpeningError(event.error)),
            );
            return;
          case 'session.closed':
          case 'session.input_transcript.delta':
          case 'session.output_transcript.delta':
          case 'session.output_audio.delta':
            return;
        }
      });
    });
  }

  /** Speech at 24 kHz mono; sent in 200 ms chunks, as the engine consumes it. */
  append(samples: Int16Array): void {
    if (this.closing || this.socket.readyState !== WebSocket.OPEN) return;
    this.pending.push(samples);
    this.pendingSamples += samples.length;
    const chunk = (REALTIME_SAMPLE_RATE * REALTIME_CHUNK_MS) / 1000;
    while (this.pendingSamples >= chunk) {
      const all = concat(this.pending);
      this.send({ type: 'session.input_audio_buffer.append', audio: base64(all.subarray(0, chunk)) });
      this.sentMs += REALTIME_CHUNK_MS;
      const rest = all.slice(chunk);
      this.pending = [rest];
      this.pendingSamples = rest.length;
    }
  }

  /**
   * Asks the server to flush and close (`session.close`): resolves at `session.closed` (or once the socket
   * closed). The server first sends what remains translated, so the wait is bounded by the output's lag:
   * `CLOSE_WAIT_MS` beyond twice how far the output trailed the input, at most 30 s; then the socket is cut.
   */
  close(timeoutMs = this.closeWaitMs()): Promise<void> {
    if (this.socket.readyState === WebSocket.CLOSED) return Promise.resolve();
    this.closing = true;
    this.stopPinging();
    if (this.pendingSamples > 0) this.send({ type: 'session.input_audio_buffer.append', audio: base64(concat(this.pending)) });
    this.pending = [];
    this.pendingSamples = 0;
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.socket.terminate();
        resolve();
      }, timeoutMs);
      this.closedBy = () => {
        clearTimeout(timer);
        this.closedBy = null;
        resolve();
      };
      this.send({ type: 'session.close' });
    });
  }

  /** How long `close()` waits: the output still owed is about its lag behind the input. */
  closeWaitMs(): number {
    return Math.min(MAX_CLOSE_WAIT_MS, CLOSE_WAIT_MS + 2 * this.outputLagMs);
  }

  private startPinging(): void {
    this.socket.on('pong', () => (this.pingedAt = null));
    this.pinger = setInterval(() => this.ping(), Math.min(PING_EVERY_MS, this.stallMs / 2));
  }

  private stopPinging(): void {
    if (this.pinger) clearInterval(this.pinger);
    this.pinger = null;
  }

  /** Pings when no ping is outstanding; one unanswered for `stallMs` cuts the connection (`closed('stalled')`). */
  private ping(): void {
    if (this.closing || this.socket.readyState !== WebSocket.OPEN) return;
    if (this.pingedAt === null) {
      this.pingedAt = Date.now();
      return this.socket.ping();
    }
    // Overdue: an answer already received but not yet read (our own event loop was busy) is read first.
    setImmediate(() => {
      if (this.closing || this.pingedAt === null || Date.now() - this.pingedAt < this.stallMs) return;
      this.stopPinging();
      this.stalled = true;
      this.socket.terminate();
    });
  }

  /** The output's lag behind the input, from a delta's `elapsed_ms` (a position in the input audio). */
  private aligned(elapsedMs: number | null | undefined): void {
    if (typeof elapsedMs === 'number') this.outputLagMs = Math.max(0, this.sentMs - elapsedMs);
  }

  private send(event: TranslationClientEvent): void {
    if (this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(event));
  }

  private dispatch(event: TranslationServerEvent): void {
    switch (event.type) {
      case 'session.input_transcript.delta':
        this.events.inputText(event.delta);
        return;
      case 'session.output_transcript.delta':
        this.aligned(event.elapsed_ms);
        this.events.outputText(event.delta);
        return;
      case 'session.output_audio.delta': {
        this.aligned(event.elapsed_ms);
        const bytes = Buffer.from(event.delta, 'base64');
        const samples = new Int16Array(bytes.length >> 1);
        for (let i = 0; i < samples.length; i += 1) samples[i] = bytes.readInt16LE(i * 2);
        this.events.outputAudio(samples, event.sample_rate ?? REALTIME_SAMPLE_RATE);
        return;
      }
      case 'error':
        this.events.error(new Error(`realtime translation: ${event.error.code ?? event.error.type}: ${event.error.message}`));
        return;
      case 'session.closed':
        // Everything translated has been sent: the close is done, whether or not the server closes the socket.
        this.closedBy?.();
        if (this.closing) this.socket.close();
        return;
      case 'session.created':
      case 'session.updated':
        return;
    }
  }
}
