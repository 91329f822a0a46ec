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
}

export interface TranslationSessionEvents {
  inputText(delta: string): void;
  outputText(delta: string): void;
  outputAudio(samples: Int16Array, sampleRate: number): void;
  /** An `error` event the session survives (the protocol says most are recoverable). */
  error(error: Error): void;
  /** The socket closed: `expected` after `close()`, otherwise a drop. */
  closed(expected: boolean): void;
}

/** A pipeline's sessions: everything but the target language, which is per speaker. */
export type RealtimeSessionOptions = Omit<TranslationSessionOptions, 'targetLanguage'>;

/** Why a session could not be opened: a refused key, an error before the session was configured, no answer. */
export class SessionRefused extends Error {}

/**
 * One realtime translation session over its WebSocket: opened and configured (target language, source
 * transcription), audio appended in 200 ms chunks as it comes, server deltas handed to `events`.
 */
export class TranslationSession {
  private readonly socket: WebSocket;
  private pending: Int16Array[] = [];
  private pendingSamples = 0;
  private closing = false;

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
      socket.on('unexpected-response', (_request, response) =>
        fail(new SessionRefused(`the translation endpoint answered HTTP ${response.statusCode ?? '?'}`)),
      );
      socket.on('error', (error) => (state === 'open' ? events.error(error) : fail(new SessionRefused(error.message))));
      socket.on('close', () => {
        if (state === 'opening')
          fail(new SessionRefused('the translation endpoint closed the connection before the session was configured'));
        else if (state === 'open') events.closed(session.closing);
      });
      socket.on('message', (data) => {
        let event: TranslationServerEvent;
        try {
          event = JSON.parse(String(data)) as TranslationServerEvent;
        } catch {
          return;
        }
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
            resolve(session);
            return;
          case 'error':
            fail(new SessionRefused(`${event.error.code ?? event.error.type}: ${event.error.message}`));
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

function base64(samples: Int16Array): string {
  return Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength).toString('base64');
}
