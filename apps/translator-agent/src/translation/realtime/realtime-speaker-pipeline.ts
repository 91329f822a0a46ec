/**
 * One speaker through OpenAI's realtime translation session. Longer than ~300 lines on purpose: the
 * session's lifecycle (opening, bounded reopening after a refusal, drop or stall, giving up to the
 * composed fallback or to nothing, the status it shows) and the segments cut from the session's deltas
 * (captions, transcript, speech, latency, word lag) work on one state — the open session, the speech
 * held while it reopens, the open segment and the speech onset — and a drop ends the open segment, so
 * a split would pass that state back and forth between two files.
 */
import { directionLabel } from '@app/domain/translation-routing';
import { AudioFrame } from '@livekit/rtc-node';
import type { StreamService } from '../../capacity/stream-budget';
import { SincResampler } from '../../local/sinc-resampler';
import type { RealtimeFailureReason } from '../../metrics/agent-metrics';
import type { SpeakerStream, SpeakerStreamOptions } from '../speaker-stream';
import type { StreamState, StreamStatus } from '../translator-status';
import { FrameQueue } from './frame-queue';
import { REALTIME_SAMPLE_RATE } from './protocol';
import { voiced } from './pcm16';
import { SessionRefused } from './session-refused';
import { STALL_MS, TranslationSession, type TranslationSessionOptions } from './translation-session';

export interface RealtimeSpeakerPipelineOptions extends SpeakerStreamOptions {
  /** Where and how to open sessions; the target language is the room's other one. An empty `apiKey`: none configured. */
  session: Omit<TranslationSessionOptions, 'targetLanguage'>;
  /** No delta for this long ends a transcript segment (the protocol has no turns). */
  idleMs?: number;
  /** How long a segment heard but not yet translated waits for its translation (`SEGMENT_OUTPUT_WAIT_MS`). */
  outputWaitMs?: number;
  /** Failed attempts in a row (refused, dropped or stalled without an answer since) before giving up. Default 3. */
  maxReconnects?: number;
  /**
   * Once the session is given up: the composed pipeline that serves the speaker instead (captions and,
   * where it can, speech). Null or absent: the speaker goes untranslated and the status says why.
   */
  fallback?: (() => SpeakerStream | null) | null;
  /** The speaker's status whenever it changes after a failure: reconnecting, translating again, fallback, unavailable. */
  onStatus?: (status: StreamStatus) => void;
  /** The direction, when not the speaker's declared language into the room's other one (a mono device's sessions). */
  direction?: { source: string; target: string };
  /**
   * A segment is shown (captions, transcript) only once the session translates it: a mono device's session
   * hears both languages and stays quiet on speech already in its target, which the other session translates.
   */
  outputGated?: boolean;
  /** Every translated delta (text or speech): a mono device's other session is told (`siblingTranslated`). */
  onTranslated?: () => void;
}

/** The provider's deltas stop this long: the segment is over. */
export const SEGMENT_IDLE_MS = 1200;
/**
 * A segment heard (input transcript) but not translated yet waits this long after its last delta for the
 * translation: the output may trail the input by seconds. Past it the model stayed quiet on that speech.
 */
export const SEGMENT_OUTPUT_WAIT_MS = 5000;
/** Failed attempts in a row before the session is given up. */
export const MAX_RECONNECTS = 3;
const MAX_RESTART_DELAY_MS = 10_000;
/** Speech heard while the session is (re)opening is held back this long at most, then sent once it opens. */
const HOLD_BACK_SAMPLES = REALTIME_SAMPLE_RATE * 3;
/** Translated speech goes to the track in 20 ms frames. */
const FRAME_SAMPLES = REALTIME_SAMPLE_RATE / 50;

interface OpenSegment {
  segmentId: string;
  input: string;
  output: string;
  startedAt: number;
  lastAt: number;
  speech: FrameQueue | null;
  /** The session said something of it in the target language (text or speech). */
  translated: boolean;
  playing: Promise<void>;
  timer: NodeJS.Timeout | null;
}

/**
 * One speaker through a hosted speech-to-speech translation session (OpenAI's realtime translation):
 * the speaker's audio streams in, translated speech and both transcripts stream out while they talk.
 * Captions, transcript segments (cut where the deltas pause), latency, billing and capacity work as
 * with `SpeakerPipeline`; a refused or dropped session is reported, counted and opened again.
 */
export class RealtimeSpeakerPipeline implements SpeakerStream {
  private readonly now: () => number;
  private readonly source: string;
  private readonly target: string;
  private session: TranslationSession | null = null;
  private resampler: SincResampler | null = null;
  private resamplerRate = 0;
  private segment: OpenSegment | null = null;
  private sequence = 0;
  private closed = false;
  private wake: (() => void) | null = null;
  private dropped: ((how: 'closed' | 'dropped' | 'stalled') => void) | null = null;
  private service: StreamService;
  private readonly finishing: Promise<void>[] = [];
  /** Speech heard while no session is open, sent once one is. */
  private held: Int16Array[] = [];
  private heldSamples = 0;
  /** The current session said something: a failure after it starts a new count of attempts. */
  private answered = false;
  /** Once the session is given up: the composed pipeline serving the speaker, or none. */
  private fallback: SpeakerStream | null = null;
  private givenUp = false;
  private state: StreamState = 'translating';
  /**
   * Where the speech the next segment translates began: the latest voiced frame that followed at least a
   * segment's idle time of quiet audio (the protocol gives no word times). Taken by the next segment's first audio.
   */
  private onsetAt: number | null = null;
  /** Milliseconds of quiet audio since the last voiced frame. */
  private quietMs = Number.POSITIVE_INFINITY;
  /** A mono device's session: source transcript heard since this session or the other one last translated. */
  private heardUntranslated = '';

  constructor(private readonly options: RealtimeSpeakerPipelineOptions) {
    this.now = options.now ?? Date.now;
    this.service = options.service ?? 'full';
    const [a, b] = options.roomLanguages;
    // The speaker's declared language is the source; the room's other language the target.
    this.source = options.direction?.source ?? options.speaker.languages.find((l) => l === a || l === b) ?? a;
    this.target = options.direction?.target ?? (this.source === a ? b : a);
  }

  get currentService(): StreamService {
    return this.service;
  }

  setService(service: StreamService): void {
    this.service = service;
    this.fallback?.setService(service);
  }

  pushFrame(frame: AudioFrame): void {
    if (this.closed) return;
    if (this.fallback) return this.fallback.pushFrame(frame);
    if (this.givenUp) return; // untranslated: the status says why
    if (frame.sampleRate !== this.resamplerRate) {
      this.resamplerRate = frame.sampleRate;
      this.resampler = frame.sampleRate === REALTIME_SAMPLE_RATE ? null : new SincResampler(frame.sampleRate, REALTIME_SAMPLE_RATE);
    }
    let samples = frame.data.subarray(0, frame.samplesPerChannel * frame.channels);
    if (!voiced(samples)) this.quietMs += (frame.samplesPerChannel / frame.sampleRate) * 1000;
    else {
      if (this.quietMs >= (this.options.idleMs ?? SEGMENT_IDLE_MS)) this.onsetAt = this.now();
      this.quietMs = 0;
    }
    if (frame.channels > 1) samples = Int16Array.from({ length: frame.samplesPerChannel }, (_, i) => samples[i * frame.channels]!);
    const speech = this.resampler ? this.resampler.push(samples) : samples;
    if (this.session) return this.session.append(speech);
    // Opening, or opening again: the latest few seconds wait for the session.
    this.held.push(speech);
    this.heldSamples += speech.length;
    while (this.heldSamples - this.held[0]!.length >= HOLD_BACK_SAMPLES) this.heldSamples -= this.held.shift()!.length;
  }

  async run(): Promise<void> {
    const maxFailures = this.options.maxReconnects ?? MAX_RECONNECTS;
    let delay = this.options.restartDelayMs ?? 500;
    let failures = 0;
    /** What started the current run of failures: the reason reported when it ends in giving up. */
    let cause: RealtimeFailureReason = 'refused';
    if (!this.options.session.apiKey)
      this.giveUp('missing_key', 'no API key is configured for the realtime translation session (OPENAI_API_KEY)');
    while (!this.closed && !this.givenUp) {
      const lost = new Promise<'closed' | 'dropped' | 'stalled'>((resolve) => (this.dropped = resolve));
      let failure: { reason: RealtimeFailureReason; message: string; permanent: boolean };
      try {
        this.answered = false;
        this.session = await TranslationSession.open({ ...this.options.session, targetLanguage: this.target }, this.sessionEvents());
        for (const held of this.held) this.session.append(held);
        this.held = [];
        this.heldSamples = 0;
        if (failures > 0) this.status('translating', null, 'the realtime translation session is open again');
        const how = await lost;
        if (this.closed) break;
        this.session = null;
        // The provider's context went with the session: what it said so far is one segment.
        this.endSegment();
        this.options.observer?.recognitionRestart();
        if (this.answered) {
          failures = 0;
          delay = this.options.restartDelayMs ?? 500;
        }
        const stallMs = this.options.session.stallMs ?? STALL_MS;
        failure =
          how === 'stalled'
            ? { reason: 'stalled', message: `stalled: no answer (no event, no pong) for ${stallMs} ms`, permanent: false }
            : { reason: 'dropped', message: 'dropped: the connection was lost', permanent: false };
      } catch (error) {
        const message = `refused: ${error instanceof Error ? error.message : String(error)}`;
        failure = { reason: 'refused', message, permanent: error instanceof SessionRefused && error.permanent };
      }
      if (this.closed) break;
      failures += 1;
      if (failures === 1) cause = failure.reason;
      const why = `realtime translation session of ${this.options.speaker.identity} ${failure.message}`;
      if (failure.permanent || failures > maxFailures) {
        this.options.observer?.providerError('realtime', false);
        this.giveUp(failure.permanent ? failure.reason : cause, failure.permanent ? why : `${why} (${failures} failed attempts in a row)`);
        break;
      }
      this.options.observer?.providerError('realtime', true);
      this.options.observer?.realtimeFailure?.(failure.reason, 'retried');
      this.options.onError?.(new Error(`${why}; reopening in ${delay} ms (attempt ${failures} of ${maxFailures})`));
      this.status('reconnecting', failure.reason, `${why}; reopening`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
      delay = Math.min(delay * 2, MAX_RESTART_DELAY_MS);
    }
    // The server flushes what it heard and sends the rest of its translation before it closes.
    await this.session?.close();
    this.session = null;
    this.endSegment();
    if (this.fallback) {
      if (this.closed) this.fallback.close();
      await this.fallback.run();
    } else if (this.givenUp && !this.closed) {
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
    await Promise.all(this.finishing);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.fallback?.close();
    this.wake?.();
    this.dropped?.('closed');
  }

  /**
   * The session is given up: the composed pipeline takes the speaker over when there is one, else the
   * speaker goes untranslated. Either way it is logged, counted by reason and shown on the status.
   */
  private giveUp(reason: RealtimeFailureReason, why: string): void {
    this.givenUp = true;
    this.held = [];
    this.heldSamples = 0;
    this.fallback = this.options.fallback?.() ?? null;
    this.fallback?.setService(this.service);
    this.options.observer?.realtimeFailure?.(reason, this.fallback ? 'fallback' : 'unavailable');
    const what = this.fallback ? 'the composed pipeline translates instead' : 'not translated';
    this.options.onError?.(new Error(`${why}; ${what}`));
    this.status(this.fallback ? 'fallback' : 'unavailable', reason, `${why}; ${what}`);
  }

  private status(state: StreamState, reason: RealtimeFailureReason | null, message: string): void {
    if (state === this.state && state === 'translating') return;
    this.state = state;
    const { identity, trackSid } = this.options.speaker;
    this.options.onStatus?.({ speakerIdentity: identity, trackSid, state, reason, message });
  }

  private sessionEvents() {
    return {
      inputText: (delta: string) => {
        // A mono device's session: heard words wait for this session's own translation to be shown.
        if (this.options.outputGated) return void (this.heardUntranslated += delta);
        const s = this.open();
        s.input += delta;
        this.emit(this.options.outputs.transcript(this.transcript(s, false)));
      },
      outputText: (delta: string) => {
        const s = this.open();
        this.translating(s);
        s.output += delta;
        const text = s.output.trim();
        const { identity, trackSid } = this.options.speaker;
        if (text) {
          this.emit(
            this.options.outputs.translation({
              speakerIdentity: identity,
              trackSid,
              segmentId: s.segmentId,
              source: this.source,
              target: this.target,
              text,
            }),
          );
        }
      },
      outputAudio: (samples: Int16Array, sampleRate: number) => this.speak(samples, sampleRate),
      error: (error: Error) => {
        this.options.observer?.providerError('realtime', true);
        this.options.onError?.(error);
      },
      closed: (how: 'closed' | 'dropped' | 'stalled') => {
        if (how !== 'closed') this.dropped?.(how);
      },
    };
  }

  /** The open segment, or a new one: a delta after an idle gap starts the next segment. */
  private open(): OpenSegment {
    this.answered = true;
    const now = this.now();
    if (!this.segment) {
      this.sequence += 1;
      this.segment = {
        segmentId: `${this.options.segmentPrefix}-${this.sequence}`,
        input: '',
        output: '',
        startedAt: now,
        lastAt: now,
        speech: null,
        translated: false,
        playing: Promise.resolve(),
        timer: null,
      };
    }
    const s = this.segment;
    s.lastAt = now;
    this.armEnd(s);
    return s;
  }

  /** The segment ends after the idle time, or, while nothing of it is translated yet, after the output wait. */
  private armEnd(s: OpenSegment): void {
    if (s.timer) clearTimeout(s.timer);
    const idleMs = this.options.idleMs ?? SEGMENT_IDLE_MS;
    const waitMs = s.translated ? idleMs : Math.max(idleMs, this.options.outputWaitMs ?? SEGMENT_OUTPUT_WAIT_MS);
    s.timer = setTimeout(() => this.endSegment(), waitMs);
  }

  /**
   * A mono device's other session translated speech. What this one heard and has not translated was that
   * speech: it is dropped. A segment this one was translating is over: the other language is being spoken.
   */
  siblingTranslated(): void {
    this.heardUntranslated = '';
    this.endSegment();
  }

  /** The segment is being translated (text or speech): words heard before are its own, shown from now on a mono device. */
  private translating(s: OpenSegment): void {
    this.options.onTranslated?.();
    if (this.heardUntranslated) {
      s.input += this.heardUntranslated;
      this.heardUntranslated = '';
      this.emit(this.options.outputs.transcript(this.transcript(s, false)));
    }
    if (s.translated) return;
    s.translated = true;
    this.armEnd(s);
  }

  private speak(samples: Int16Array, sampleRate: number): void {
    // Silence the service streams between translations neither starts nor prolongs a segment.
    if (!voiced(samples)) {
      if (this.segment?.speech) this.segment.speech.push(new AudioFrame(samples, sampleRate, 1, samples.length));
      return;
    }
    const s = this.open();
    this.translating(s);
    const direction = directionLabel(this.source, this.target);
    if (this.service !== 'full') {
      if (!s.speech) this.options.observer?.utterance('dropped', 'captions_only');
      return;
    }
    if (!s.speech) {
      s.speech = new FrameQueue();
      const now = this.now();
      const delay = now - s.startedAt;
      this.options.latency.record(direction, delay);
      this.options.observer?.firstAudio(this.source, this.target, delay);
      // Word lag without word times (the protocol has none): the segment's speech onset to its first frame.
      if (this.onsetAt !== null)
        this.options.observer?.spokenChunk?.(this.source, this.target, { wordStarts: [this.onsetAt], firstFrameAt: now });
      this.onsetAt = null;
      s.playing = this.options.outputs.play(this.target, s.speech).catch((error: unknown) => this.options.onError?.(error));
    }
    const step = (sampleRate * 20) / 1000 || FRAME_SAMPLES;
    for (let at = 0; at < samples.length; at += step) {
      const part = samples.slice(at, at + step);
      s.speech.push(new AudioFrame(part, sampleRate, 1, part.length));
    }
    // What the translator bills: seconds of translated speech.
    this.options.latency.addAudio(direction, samples.length / sampleRate);
  }

  private endSegment(): void {
    const s = this.segment;
    if (!s) return;
    this.segment = null;
    if (s.timer) clearTimeout(s.timer);
    s.speech?.end();
    const text = s.input.trim();
    const translation = s.output.trim();
    const { identity, trackSid } = this.options.speaker;
    if (text) this.emit(this.options.outputs.transcript(this.transcript(s, true)));
    // The session takes no glossary: its segments are counted where the room has one for this direction.
    if (text && this.options.glossaries?.direction(this.source, this.target)) this.options.observer?.glossaryUnapplied?.('realtime');
    const report = text
      ? this.options.outputs.segment?.({
          speakerIdentity: identity,
          trackSid,
          segmentId: s.segmentId,
          language: this.source,
          text,
          translation: translation ? { language: this.target, text: translation } : null,
          startedAt: s.startedAt,
          endedAt: s.lastAt,
        })
      : undefined;
    this.finishing.push(Promise.all([s.playing, report?.catch((error: unknown) => this.options.onError?.(error))]).then(() => undefined));
  }

  private transcript(s: OpenSegment, final: boolean) {
    const { identity, trackSid } = this.options.speaker;
    return { speakerIdentity: identity, trackSid, segmentId: s.segmentId, language: this.source, text: s.input.trim(), final };
  }

  private emit(promise: Promise<void>): void {
    promise.catch((error: unknown) => this.options.onError?.(error));
  }
}
