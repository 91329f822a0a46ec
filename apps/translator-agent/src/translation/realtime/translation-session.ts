import { WebSocket } from 'ws';
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
  /** Speech sent and no server event for this long: the provider stopped answering (the session is cut, `stalled`). */
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
   * `stalled` when it was cut because speech went unanswered for `stallMs`.
   */
  closed(how: 'closed' | 'dropped' | 'stalled'): void;
}

/** A pipeline's sessions: everything but the target language, which is per speaker. */
export type RealtimeSessionOptions = Omit<TranslationSessionOptions, 'targetLanguage'>;

/**
 * Why a session could not be opened: a refused key, an error before the session was configured, no answer.
 * `permanent` when the service itself said no (an HTTP 4xx other than 408 and 429, an `error` event other
 * than a transient one): trying again the same way would be refused again.
 */
export class SessionRefused extends Error {
  constructor(
    message: string,
    readonly permanent = false,
  ) {
    super(message);
  }
}

/**
 * An `error` event before the session is configured that trying again may get past: the service's own
 * failure (`server_error`, the realtime counterpart of an HTTP 5xx) or a rate limit (HTTP 429's). Every
 * other error (an invalid output language, `insufficient_quota`, a bad key) would be refused again.
 */
export function transientOpeningError(error: { type: string; code?: string | null }): boolean {
  return error.type === 'server_error' || error.code === 'server_error' || error.code === 'rate_limit_exceeded';
}

/** No server event for this long while speech is being sent: the provider stopped answering. */
export const STALL_MS = 8000;
/** Audio louder than this (RMS of PCM16) is speech: the provider should answer it. */
const VOICED_RMS = 300;

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
  /** The stall timer: armed by the first voiced chunk after the server's last event. */
  private unanswered: NodeJS.Timeout | null = null;
  private stallMs = STALL_MS;

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
        session.answered();
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
        if (state === 'open') {
          session.answered();
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
      if (!this.unanswered && voiced(all.subarray(0, chunk))) this.unanswered = setTimeout(() => this.stall(), this.stallMs);
      const rest = all.slice(chunk);
      this.pending = [rest];
      this.pendingSamples = rest.length;
    }
  }

  /** Asks the server to flush and close (`session.close`); resolves once the socket closed or after `timeoutMs`. */
  close(timeoutMs = 5000): Promise<void> {
    if (this.socket.readyState === WebSocket.CLOSED) return Promise.resolve();
    this.closing = true;
    if (this.pendingSamples > 0) this.send({ type: 'session.input_audio_buffer.append', audio: base64(concat(this.pending)) });
    this.pending = [];
    this.pendingSamples = 0;
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.socket.terminate();
        resolve();
      }, timeoutMs);
      this.socket.on('close', () => {
        clearTimeout(timer);
        resolve();
      });
      this.send({ type: 'session.close' });
    });
  }

  /** The server said something: speech sent so far is not unanswered. */
  private answered(): void {
    if (this.unanswered) clearTimeout(this.unanswered);
    this.unanswered = null;
  }

  /** Speech went unanswered for `stallMs`: the connection is cut (`closed('stalled')`). */
  private stall(): void {
    this.unanswered = null;
    if (this.closing) return;
    this.stalled = true;
    this.socket.terminate();
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
        this.events.outputText(event.delta);
        return;
      case 'session.output_audio.delta': {
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
      case 'session.created':
      case 'session.updated':
        return;
    }
  }
}

function concat(parts: Int16Array[]): Int16Array {
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** Whether the audio is speech rather than silence (its RMS above `VOICED_RMS`). */
export function voiced(samples: Int16Array): boolean {
  let sum = 0;
  for (const s of samples) sum += s * s;
  return Math.sqrt(sum / Math.max(1, samples.length)) > VOICED_RMS;
}

function base64(samples: Int16Array): string {
  return Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength).toString('base64');
}
