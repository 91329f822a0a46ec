/**
 * A local stand-in of OpenAI's realtime translation WebSocket (`/v1/realtime/translations?model=…`).
 * It speaks the protocol as the public API reference records it ("Realtime translation" guide,
 * "Translation client events", "Translation server events" — see src/translation/realtime/protocol.ts):
 * `session.created` on connect, `session.updated` after `session.update`, 200 ms
 * `session.input_audio_buffer.append` chunks in, `session.input_transcript.delta` /
 * `session.output_transcript.delta` / `session.output_audio.delta` (base64 24 kHz PCM16, 200 ms) out,
 * `session.closed` after `session.close`. A wrong key is refused with HTTP 401 at the handshake, as the
 * service does. Its "translation" is scripted: every loud 200 ms chunk says the next word of the current
 * line (and 200 ms of a tone as speech); two quiet chunks in a row after speech (a pause, not a breath
 * between words) move to the next line.
 *
 * Failures, for the client's error paths: `refuse()` turns new connections away, at the handshake with an
 * HTTP status (401 wrong key, 403, 429 rate limit, 5xx) or after `session.created` with the documented
 * `error` event (`{type:"error", event_id, error:{type, code, message, param, event_id}}`) followed by a
 * close, as the service does for a session it will not serve (e.g. `insufficient_quota`), or for a transient
 * `server_error` (`times`: only the next so many connections); `stall()` keeps
 * every connection open but answers nothing more, not even a WebSocket ping (a provider that stops
 * answering); `drop()` cuts every open connection without a close handshake (a network failure).
 *
 * Behaviours of the service the client must live with: a script line in the session's output language is
 * not translated ("speech already in the target language": the model stays quiet; its input transcript still
 * comes); `streamSilence()` answers every quiet chunk with 200 ms of silent output audio, as a service that
 * keeps its output stream running does; `lag(ms)` sends the output deltas that much later than the input
 * they translate (and `session.closed` after the last of them). Every delta carries `elapsed_ms`, the
 * position in the input audio of the chunk it answers.
 *
 * Like the service, it speaks only the 13 output languages of `gpt-realtime-translate`: a `session.update`
 * asking for another gets an `error` event (the `RealtimeErrorEvent` shape of the openai package: type
 * `invalid_request_error`, code `invalid_value`, `param` naming the field, `event_id` the client event's) and
 * the session stays as it was; no `session.updated` follows. The code and message are the Realtime API's
 * for an invalid enum value, not checked against this endpoint.
 */
import { randomBytes } from 'node:crypto';
import { WebSocketServer, type WebSocket } from 'ws';

export interface ScriptLine {
  input: string;
  output: string;
  /** The language the line is said in (default: not the session's output language, so it is translated). */
  language?: string;
}

const RATE = 24_000;
const CHUNK = (RATE * 200) / 1000;
const LOUD_RMS = 300;
/** Quiet 200 ms chunks after speech that end a line. */
const LINE_BREAK_CHUNKS = 2;
/** What `gpt-realtime-translate` speaks (`audio.output.language`), as OpenAI's realtime translation guide lists it. */
const OUTPUT_LANGUAGES = ['es', 'pt', 'fr', 'ja', 'ru', 'zh', 'de', 'ko', 'hi', 'id', 'vi', 'it', 'en'];

/** How new connections are turned away: an HTTP status at the handshake, or an `error` event then a close. */
export type Refusal = ({ http: number } | { error: { type: string; code: string | null; message: string }; closeCode?: number }) & {
  /** Only the next this many connections are refused; absent: every one until `refuse(null)`. */
  times?: number;
};

export class RealtimeTranslationStandIn {
  private server: WebSocketServer | null = null;
  /** Every client event's type, per connection, in order. */
  readonly received: string[][] = [];
  /** The `session.update` bodies accepted (each answered with `session.updated`). */
  readonly updates: unknown[] = [];
  /** The output languages refused at `session.update` (not among the 13 the model speaks). */
  readonly refusedLanguages: string[] = [];
  connections = 0;
  private refusal: Refusal | null = null;
  private stalled = false;
  private silence = false;
  private lagMs = 0;

  constructor(
    private readonly script: ScriptLine[],
    private readonly apiKey = 'sk-standin',
  ) {}

  async start(): Promise<string> {
    this.server = new WebSocketServer({
      host: '127.0.0.1',
      port: 0,
      // Pongs are answered by hand: a stalled service answers no ping either.
      autoPong: false,
      verifyClient: ({ req }, done) => {
        if (req.headers.authorization !== `Bearer ${this.apiKey}`) return done(false, 401, 'Unauthorized');
        if (this.refusal && 'http' in this.refusal) return done(false, this.spend(this.refusal).http);
        return done(true);
      },
    });
    this.server.on('connection', (socket, req) => this.serve(socket, req.url ?? ''));
    await new Promise<void>((resolve) => this.server!.on('listening', resolve));
    const address = this.server.address();
    if (address === null || typeof address === 'string') throw new Error('The stand-in is not listening on a TCP port');
    return `ws://127.0.0.1:${address.port}/v1`;
  }

  /** New connections are refused this way until `refuse(null)`. */
  refuse(refusal: Refusal | null): void {
    this.refusal = refusal;
  }

  /** The refusal, counted against its `times`: once they are spent, connections are served again. */
  private spend<R extends Refusal>(refusal: R): R {
    if (refusal.times !== undefined && --refusal.times <= 0) this.refusal = null;
    return refusal;
  }

  /** Every connection, open or new, stops answering (no event at all) until `stall(false)`. */
  stall(stalled = true): void {
    this.stalled = stalled;
  }

  /** Every quiet input chunk is answered with 200 ms of silent output audio until `streamSilence(false)`. */
  streamSilence(on = true): void {
    this.silence = on;
  }

  /** Output deltas (and `session.closed`) go out `ms` after the input they answer. */
  lag(ms: number): void {
    this.lagMs = ms;
  }

  /** Drops every open connection without a close handshake (a network failure). */
  drop(): void {
    for (const client of this.server?.clients ?? []) client.terminate();
  }

  async stop(): Promise<void> {
    this.drop();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private serve(socket: WebSocket, url: string): void {
    this.connections += 1;
    const log: string[] = [];
    this.received.push(log);
    const send = (event: Record<string, unknown>) => {
      if (!this.stalled && socket.readyState === socket.OPEN)
        socket.send(JSON.stringify({ event_id: `event_${randomBytes(6).toString('hex')}`, ...event }));
    };
    /** Output goes out after the lag; so does `session.closed`, which must follow the last of it. */
    const sendLate = (event: Record<string, unknown>) => (this.lagMs > 0 ? setTimeout(() => send(event), this.lagMs) : send(event));
    socket.on('ping', (data) => {
      if (!this.stalled) socket.pong(data);
    });
    let chunks = 0;
    let quietChunks = 0;
    const session = {
      id: `sess_${randomBytes(8).toString('hex')}`,
      model: new URLSearchParams(url.split('?')[1] ?? '').get('model'),
      audio: { input: { transcription: null as unknown, noise_reduction: null }, output: { language: 'en' } },
    };
    let line = 0;
    let word = 0;
    let speaking = false;
    let buffered = new Int16Array(0);
    send({ type: 'session.created', session });
    const refusal = this.refusal;
    if (refusal && 'error' in refusal) {
      this.spend(refusal);
      send({ type: 'error', error: { ...refusal.error, param: null, event_id: null } });
      socket.close(refusal.closeCode ?? 1008);
      return;
    }
    socket.on('message', (data) => {
      const event = JSON.parse(String(data)) as {
        type: string;
        event_id?: string;
        audio?: string;
        session?: { audio?: { input?: typeof session.audio.input; output?: { language?: string } } };
      };
      log.push(event.type);
      switch (event.type) {
        case 'session.update': {
          const language = event.session?.audio?.output?.language;
          if (language !== undefined && !OUTPUT_LANGUAGES.includes(language)) {
            this.refusedLanguages.push(language);
            send({
              type: 'error',
              error: {
                type: 'invalid_request_error',
                code: 'invalid_value',
                message: `Invalid value: '${language}'. Supported values are: ${OUTPUT_LANGUAGES.map((l) => `'${l}'`).join(', ')}.`,
                param: 'session.audio.output.language',
                event_id: event.event_id ?? null,
              },
            });
            return;
          }
          this.updates.push(event.session);
          session.audio = { ...session.audio, ...event.session?.audio } as typeof session.audio;
          send({ type: 'session.updated', session });
          return;
        }
        case 'session.input_audio_buffer.append': {
          const bytes = Buffer.from(event.audio ?? '', 'base64');
          const samples = new Int16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
          buffered = Int16Array.from([...buffered, ...samples]);
          while (buffered.length >= CHUNK) {
            const chunk = buffered.subarray(0, CHUNK);
            buffered = buffered.slice(CHUNK);
            const loud = Math.sqrt(chunk.reduce((sum, s) => sum + s * s, 0) / CHUNK) > LOUD_RMS;
            chunks += 1;
            const elapsed_ms = chunks * 200;
            let answered = false;
            if (loud) {
              speaking = true;
              quietChunks = 0;
              const transcribe = session.audio.input.transcription !== null;
              answered = this.say(send, sendLate, { line, word, elapsed_ms, transcribe, target: session.audio.output.language });
              word += 1;
            } else if (speaking && ++quietChunks >= LINE_BREAK_CHUNKS) {
              speaking = false;
              line += 1;
              word = 0;
            }
            if (!answered && this.silence)
              sendLate({
                type: 'session.output_audio.delta',
                delta: Buffer.alloc(CHUNK * 2).toString('base64'),
                sample_rate: RATE,
                channels: 1,
                elapsed_ms,
              });
          }
          return;
        }
        case 'session.close':
          sendLate({ type: 'session.closed' });
          setTimeout(() => socket.close(), this.lagMs);
          return;
        default:
          send({
            type: 'error',
            error: { type: 'invalid_request_error', code: 'unknown_event', message: `Unknown event ${event.type}`, param: null },
          });
      }
    });
  }

  /**
   * The `word`th word of both texts of line `line` (when there is one), and 200 ms of translated speech:
   * true. A line already in the session's output language gets its input transcript only: false.
   */
  private say(
    send: (event: Record<string, unknown>) => void,
    sendLate: (event: Record<string, unknown>) => void,
    at: { line: number; word: number; elapsed_ms: number; transcribe: boolean; target: string },
  ): boolean {
    const { line, word, elapsed_ms, transcribe, target } = at;
    const script = this.script[line % this.script.length]!;
    const input = script.input.split(' ')[word];
    const output = script.output.split(' ')[word];
    // The deltas join into readable text: every word but the session's first comes with its space.
    const first = line === 0 && word === 0;
    if (input && transcribe) send({ type: 'session.input_transcript.delta', delta: first ? input : ` ${input}`, elapsed_ms });
    if (script.language === target) return false;
    if (output) sendLate({ type: 'session.output_transcript.delta', delta: first ? output : ` ${output}`, elapsed_ms });
    const tone = Int16Array.from({ length: CHUNK }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 220 * i) / RATE)));
    sendLate({
      type: 'session.output_audio.delta',
      delta: Buffer.from(tone.buffer).toString('base64'),
      sample_rate: RATE,
      channels: 1,
      elapsed_ms,
    });
    return true;
  }
}
