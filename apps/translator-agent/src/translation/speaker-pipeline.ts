import {
  directionLabel,
  primaryLanguage,
  recognitionLanguages,
  routeUtterance,
  type TranslationMode,
} from '@app/domain/translation-routing';
import { stt, tts } from '@livekit/agents';
import type { AudioFrame } from '@livekit/rtc-node';
import { performance } from 'node:perf_hooks';
import type { StreamService } from '../capacity/stream-budget';
import type { PipelineObserver } from '../metrics/agent-metrics';
import { matchLeadingCase, restoreCasing } from './casing';
import type { LatencyTracker } from './latency-tracker';
import { StableChunker, type ChunkPolicy, type TimedWord } from './stable-chunks';
import { parseTargetTag } from './tagged-output';
import { translationTaskFor, translationTaskKey, type TranslationTask } from './translation-task';
import type { TextTranslator } from './translator';

export interface TranscriptSegment {
  speakerIdentity: string;
  /** The speaker's audio track the text was heard on. */
  trackSid: string;
  segmentId: string;
  language: string | null;
  text: string;
  final: boolean;
  /** Where the utterance's speech ended, in seconds of the track's audio, when recognition says (finals). */
  audioEndTime?: number;
}

export interface TranslationSegment {
  speakerIdentity: string;
  trackSid: string;
  segmentId: string;
  source: string | null;
  target: string;
  text: string;
}

/**
 * One final recognized utterance with its fate: the translation the room's other language heard, or
 * `null` when there was none (no translation for that direction, merged into a later utterance,
 * dropped behind, failed, nothing said).
 */
export interface FinalSegment {
  speakerIdentity: string;
  trackSid: string;
  /** The final caption's segment id. */
  segmentId: string;
  /** The language it was spoken in: the route's source, else the detected one, the speaker's declared one, the room's first. */
  language: string;
  text: string;
  translation: { language: string; text: string } | null;
  /** The utterance's wall-clock bounds, milliseconds since the epoch. */
  startedAt: number;
  endedAt: number;
}

/** Where a pipeline's results go: captions as text streams, speech onto the target language's track. */
export interface TranslationOutputs {
  transcript(segment: TranscriptSegment): Promise<void>;
  translation(segment: TranslationSegment): Promise<void>;
  /**
   * Each final segment exactly once, as soon as its fate is known, in the order the speaker said them
   * (a segment not translated waits for an earlier one still being translated). Interims never come here.
   */
  segment?(segment: FinalSegment): Promise<void>;
  /** Plays one utterance's speech on the target's track, after what is queued there; resolves once played. */
  play(target: string, frames: AsyncIterable<AudioFrame>): Promise<void>;
}

/** The three stages of a pipeline, hosted or local; the very same `SpeakerPipeline` drives any of them. */
export interface SpeechProviders {
  readonly label: string;
  /** Speech recognition listening for these languages (one in dual mode, both in mono). */
  stt(languages: string[]): stt.STT;
  translator: TextTranslator;
  /**
   * Streaming synthesis in this language (a provider's own, or a sentence-level StreamAdapter), `speed`
   * times faster than its normal rate where the engine can (the local one); others ignore it.
   */
  tts(language: string, speed?: number): tts.TTS;
  /** Whether speech in `source` can be translated into `target`. */
  supports(source: string, target: string): boolean;
  /** Why not, when `supports` says no: the missing engine and the env that selects a hosted provider for it. */
  whyNot?(source: string, target: string): string;
  close?(): Promise<void>;
}

/** What every speaker stream is given by the room, whichever pipeline serves it. */
export interface SpeakerStreamOptions {
  mode: TranslationMode;
  roomLanguages: readonly [string, string];
  speaker: { identity: string; languages: readonly string[]; trackSid: string };
  /** Unique across tracks and reconnects: segment ids are `<prefix>-<n>`. */
  segmentPrefix: string;
  outputs: TranslationOutputs;
  latency: LatencyTracker;
  now?: () => number;
  onError?: (error: unknown) => void;
  /** A stream that ended (recognition, or a hosted session) starts again after this, doubling up to 10 s. */
  restartDelayMs?: number;
  /** `captions`: beyond the worker's capacity, captions only (see `setService`). Default `full`. */
  service?: StreamService;
  observer?: PipelineObserver;
}

export interface SpeakerPipelineOptions extends SpeakerStreamOptions {
  providers: SpeechProviders;
  /** Translated speech that would start later than this after its utterance ended is not spoken (captioned only). */
  maxSpeechDelayMs?: number;
  /**
   * Simultaneous mode: stable chunks of a recognizer's partial hypotheses (it must give word times,
   * as PocketSphinx does) are translated and spoken while the speaker goes on. Null or absent: sentence
   * mode, each utterance once it ended.
   */
  simultaneous?: ChunkPolicy | null;
}

/** What the room runs per speaker track: the composed pipeline below, or a hosted speech-to-speech session. */
export interface SpeakerStream {
  pushFrame(frame: AudioFrame): void;
  /** Runs until `close()`; resolves once what was heard is translated and spoken. */
  run(): Promise<void>;
  close(): void;
  setService(service: StreamService): void;
  readonly currentService: StreamService;
}

/**
 * A recognizer that can run at a lower CPU priority (PocketSphinx, a local process): a captions-only
 * stream's recognition then yields the CPU to the streams served in full.
 */
export interface BackgroundableSTT {
  setBackground(background: boolean): void;
}

function backgroundable(engine: stt.STT): engine is stt.STT & BackgroundableSTT {
  return typeof (engine as Partial<BackgroundableSTT>).setBackground === 'function';
}

/** What is translated and spoken in one go: a whole utterance (sentence mode) or one of its chunks. */
interface Utterance {
  segmentId: string;
  task: TranslationTask;
  text: string;
  source: string | null;
  target: string | null;
  endOfSpeechAt: number;
  /** When each word it carries started being spoken (epoch ms), for word lag. */
  wordStarts: number[];
  /** The utterance's last piece: once it is done, the segment's fate (its joined translation) is known. */
  last: boolean;
}

/**
 * Simultaneous speech runs this much faster than the voice's normal rate: eSpeak NG's Spanish at 175
 * words per minute is longer than read English, and a chunk must be spoken before the next is ready.
 */
const SIMULTANEOUS_SPEED = 1.3;
/** eSpeak NG stays intelligible up to about 300 words per minute. */
const MAX_SPEED = 1.8;

/**
 * Faster synthesis for speech that will start this far behind its last word (simultaneous mode): from
 * 0.8 s behind, 0.1 × faster per 150 ms more, so the backlog does not grow.
 */
export function catchUpSpeed(behindMs: number): number {
  const speed = SIMULTANEOUS_SPEED + Math.max(0, behindMs - 800) / 1500;
  return Math.min(MAX_SPEED, Math.round(speed * 10) / 10);
}

/** Utterances waiting behind the one being translated; past this, new ones are merged into the last. */
export const MAX_WAITING_UTTERANCES = 2;
/** Earlier segments (with their translations) given to the translator with each new one. */
export const CONTEXT_SEGMENTS = 3;
/** The bound on how far translated speech falls behind: an utterance not spoken within this of its end is captioned only. */
export const MAX_SPEECH_DELAY_MS = 3000;
const MAX_RESTART_DELAY_MS = 10_000;

/**
 * One speaker's audio → streaming recognition → per utterance, a streaming translation piped into
 * streaming synthesis on the target language's track. Utterances of a speaker stay in order and
 * nothing waits for a whole turn. When recognition's stream ends (a provider's session limit,
 * retries spent) it is opened again with backoff while the track is listened to.
 */
export class SpeakerPipeline implements SpeakerStream {
  private readonly engine: stt.STT;
  private speech: stt.SpeechStream | null = null;
  private readonly now: () => number;
  private speechEndedAt: number | null = null;
  /** The same moment on the monotonic clock stage durations are measured with (`now` may be a test's). */
  private speechEndedMark: number | null = null;
  /** Seconds of audio pushed into the current recognition stream. */
  private pushedSeconds = 0;
  /**
   * The wall-clock instant the current recognition stream's audio starts at (taken at its first frame):
   * recognition's word times (seconds of that audio) are wall-clock times from it, as a track delivers
   * its audio in real time.
   */
  private audioOrigin: number | null = null;
  /** When recognition said speech started (for a recognizer that gives no word times). */
  private speechStartedAt: number | null = null;
  /** Final segments in spoken order, reported once their fate is known and every earlier one's was. */
  private readonly reports: { segment: FinalSegment; decided: boolean }[] = [];
  private reporting: Promise<void> = Promise.resolve();
  private sequence = 0;
  private closed = false;
  private readonly waiting: Utterance[] = [];
  private working: Promise<void> | null = null;
  private readonly contexts = new Map<string, { text: string; translation: string }[]>();
  private wake: (() => void) | null = null;
  private service: StreamService;
  /** The recognizer's priority no longer matches the service: open it again at the next pause. */
  private reprioritize = false;
  private reopening = false;
  private inSpeech = false;
  private readonly chunker: StableChunker | null;
  /** The translated pieces of segments not yet complete (simultaneous mode), joined once the last is done. */
  private readonly translated = new Map<string, { target: string; source: string | null; texts: string[] }>();
  private lastInterim = '';
  /** Simultaneous mode: when the speech handed to the track so far will have been heard (epoch ms). */
  private speakingUntil = 0;
  /** Simultaneous mode: the piece playing while the next is synthesized (one ahead at most). */
  private playingAhead: Promise<void> = Promise.resolve();

  constructor(private readonly options: SpeakerPipelineOptions) {
    this.now = options.now ?? Date.now;
    this.service = options.service ?? 'full';
    this.chunker = options.simultaneous ? new StableChunker(options.simultaneous) : null;
    const languages = recognitionLanguages(options.mode, options.roomLanguages, options.speaker.languages);
    this.engine = options.providers.stt(languages);
    this.engine.on('error', (error) => {
      options.observer?.providerError('stt', error.recoverable);
      options.onError?.(error.error);
    });
    const [a, b] = options.roomLanguages;
    for (const [source, target] of [
      [a, b],
      [b, a],
    ] as const) {
      if (languages.includes(source) && options.providers.supports(source, target)) options.providers.translator.prepare?.(source, target);
    }
  }

  pushFrame(frame: AudioFrame): void {
    if (this.closed || !this.speech) return; // between a failed stream and its restart, audio is dropped
    try {
      this.speech.pushFrame(frame);
      this.pushedSeconds += frame.samplesPerChannel / frame.sampleRate;
      // The frame arrived as its audio ended: the stream's audio began this long before.
      this.audioOrigin ??= this.now() - this.pushedSeconds * 1000;
    } catch {
      // The stream ended under us; the restart loop opens a new one.
    }
  }

  /** Consumes recognition until `close()`; resolves once queued translations are spoken. */
  async run(): Promise<void> {
    let delay = this.options.restartDelayMs ?? 500;
    while (!this.closed) {
      if (backgroundable(this.engine)) this.engine.setBackground(this.service !== 'full');
      const speech = this.engine.stream();
      this.speech = speech;
      this.pushedSeconds = 0;
      this.audioOrigin = null;
      let heard = false;
      for await (const event of speech) {
        if (event.type === stt.SpeechEventType.FINAL_TRANSCRIPT) heard = true;
        this.onSpeech(event);
      }
      this.speech = null;
      speech.close();
      if (this.closed) break;
      if (this.reopening) {
        this.reopening = false;
        continue;
      }
      this.options.observer?.recognitionRestart();
      if (heard) delay = this.options.restartDelayMs ?? 500;
      this.options.onError?.(new Error(`speech recognition of ${this.options.speaker.identity} ended; restarting in ${delay} ms`));
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
    while (this.working) await this.working;
    await this.playingAhead;
    for (let reporting = this.reporting; ; reporting = this.reporting) {
      await reporting;
      if (reporting === this.reporting) break;
    }
  }

  /**
   * Full service (speech) or captions only, from the next utterance on. A recognizer running in the
   * background is reopened at normal priority at the next pause in speech.
   */
  setService(service: StreamService): void {
    if (service === this.service) return;
    this.service = service;
    if (!backgroundable(this.engine)) return;
    this.reprioritize = true;
    if (!this.inSpeech) this.reopenRecognizer();
  }

  get currentService(): StreamService {
    return this.service;
  }

  private reopenRecognizer(): void {
    if (!this.reprioritize || !this.speech) return;
    this.reprioritize = false;
    this.reopening = true;
    this.speech.endInput();
  }

  /** Stops listening: what was heard is still recognized, translated and spoken, then `run()` resolves. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.speech?.endInput();
    this.wake?.();
  }

  private onSpeech(event: stt.SpeechEvent): void {
    switch (event.type) {
      case stt.SpeechEventType.START_OF_SPEECH:
        this.speechEndedAt = null;
        this.speechStartedAt = this.now();
        this.inSpeech = true;
        return;
      case stt.SpeechEventType.END_OF_SPEECH: {
        // A recognizer that says where in its audio the speech ended (PocketSphinx's word times) is told
        // the end only after its trailing silence: latency counts from the speech's end, not from being told.
        const late = event.speechEndTime !== undefined ? this.pushedSeconds - event.speechEndTime : 0;
        const lateMs = late > 0 && late < 10 ? late * 1000 : 0;
        this.speechEndedAt = this.now() - lateMs;
        this.speechEndedMark = performance.now() - lateMs;
        this.inSpeech = false;
        // Its final transcript still comes: ending the input only stops what comes after.
        this.reopenRecognizer();
        return;
      }
      case stt.SpeechEventType.INTERIM_TRANSCRIPT:
      case stt.SpeechEventType.PREFLIGHT_TRANSCRIPT: {
        const alt = event.alternatives?.[0];
        const text = alt?.text.trim();
        // A recognizer may repeat an unchanged hypothesis (PocketSphinx does, for the chunker): one caption for it.
        if (alt && text && text !== this.lastInterim) {
          this.lastInterim = text;
          this.emit(this.options.outputs.transcript(this.segment(alt, false, this.segmentId(this.sequence + 1))));
        }
        if (alt) this.onHypothesis(alt);
        return;
      }
      case stt.SpeechEventType.FINAL_TRANSCRIPT:
        this.onFinal(event);
        return;
      case stt.SpeechEventType.RECOGNITION_USAGE:
        return;
    }
  }

  private segmentId(n: number): string {
    return `${this.options.segmentPrefix}-${n}`;
  }

  private segment(alt: stt.SpeechData, final: boolean, segmentId: string): TranscriptSegment {
    const { identity, trackSid } = this.options.speaker;
    return { speakerIdentity: identity, trackSid, segmentId, language: alt.language || null, text: alt.text.trim(), final };
  }

  /** The wall-clock instant of a time on the recognition stream's audio (seconds). */
  private wallClock(seconds: number): number {
    return Math.round((this.audioOrigin ?? this.now()) + seconds * 1000);
  }

  private words(alt: stt.SpeechData): TimedWord[] {
    return (alt.words ?? []).flatMap((w) =>
      w.startTime !== undefined && w.endTime !== undefined ? [{ text: w.text, start: w.startTime, end: w.endTime }] : [],
    );
  }

  /** The pieces of one utterance: its chunks' text (cased as a sentence's start only for the first), times and words. */
  private pieces(chunks: TimedWord[][], base: Omit<Utterance, 'text' | 'endOfSpeechAt' | 'wordStarts' | 'last'>, first: boolean) {
    return chunks.map((words, i) => ({
      ...base,
      text: restoreCasing(words.map((w) => w.text).join(' '), first && i === 0),
      endOfSpeechAt: this.wallClock(words[words.length - 1]!.end),
      wordStarts: words.map((w) => this.wallClock(w.start)),
      last: false,
    }));
  }

  /** Simultaneous mode: the stable chunks of a partial hypothesis go to translation before the utterance ends. */
  private onHypothesis(alt: stt.SpeechData): void {
    if (!this.chunker || !alt.words?.length) return;
    const route = routeUtterance({
      mode: this.options.mode,
      roomLanguages: this.options.roomLanguages,
      speakerLanguages: this.options.speaker.languages,
      detectedLanguage: alt.language || null,
    });
    // Only a known direction is chunked: a mono room's detection step needs the whole utterance.
    if (route.kind !== 'translate' || !this.options.providers.supports(route.source, route.target)) return;
    const segmentId = this.segmentId(this.sequence + 1);
    const first = !this.translated.has(segmentId) && !this.waiting.some((u) => u.segmentId === segmentId);
    const task = translationTaskFor(route, this.options.roomLanguages)!;
    const chunks = this.chunker.hypothesis(this.words(alt), alt.endTime);
    if (chunks.length === 0) return;
    this.translated.set(segmentId, this.translated.get(segmentId) ?? { target: route.target, source: route.source, texts: [] });
    for (const piece of this.pieces(chunks, { segmentId, task, source: route.source, target: route.target }, first)) this.enqueue(piece);
  }

  private onFinal(event: stt.SpeechEvent): void {
    const alt = event.alternatives?.[0];
    const text = alt?.text.trim();
    this.lastInterim = '';
    if (!alt || !text) {
      this.closeChunks();
      return;
    }
    this.sequence += 1;
    const segmentId = this.segmentId(this.sequence);
    const route = routeUtterance({
      mode: this.options.mode,
      roomLanguages: this.options.roomLanguages,
      speakerLanguages: this.options.speaker.languages,
      detectedLanguage: alt.language || null,
    });
    const endOfSpeechAt = this.speechEndedAt ?? this.now();
    const [startedAt, endedAt] = this.utteranceBounds(alt, endOfSpeechAt);
    if (this.speechEndedMark !== null) this.options.observer?.stage('recognition', performance.now() - this.speechEndedMark);
    this.speechEndedMark = null;
    this.speechEndedAt = null;
    this.speechStartedAt = null;
    const source = route.kind === 'translate' ? route.source : null;
    const { identity, trackSid, languages } = this.options.speaker;
    const detected = alt.language ? primaryLanguage(alt.language) : '';
    this.reports.push({
      segment: {
        speakerIdentity: identity,
        trackSid,
        segmentId,
        language: source || detected || languages[0] || this.options.roomLanguages[0],
        text,
        translation: null,
        startedAt,
        endedAt,
      },
      decided: false,
    });
    this.emit(
      this.options.outputs.transcript({
        ...this.segment(alt, true, segmentId),
        language: source ?? (alt.language || null),
        ...(alt.endTime > 0 ? { audioEndTime: alt.endTime } : {}),
      }),
    );
    const task = translationTaskFor(route, this.options.roomLanguages);
    if (!task || (task.kind === 'fixed' && !this.options.providers.supports(task.source, task.target))) {
      this.chunker?.final([]);
      this.decide(segmentId, null);
      return;
    }
    const target = route.kind === 'translate' ? route.target : null;
    const words = this.words(alt);
    if (this.chunker && this.translated.has(segmentId)) {
      // Chunks of it are translated already: the words after them follow, and the last piece closes the segment.
      const rest = this.pieces(this.chunker.final(words), { segmentId, task, source, target }, false);
      const last = rest[rest.length - 1] ?? { segmentId, task, text: '', source, target, endOfSpeechAt, wordStarts: [], last: true };
      last.last = true;
      for (const piece of rest.length > 0 ? rest : [last]) this.enqueue(piece);
      return;
    }
    this.chunker?.final([]);
    const wordStarts = words.map((w) => this.wallClock(w.start));
    this.enqueue({ segmentId, task, text, source, target, endOfSpeechAt, wordStarts, last: true });
  }

  /** An utterance that ends with nothing recognized in its final pass: what was chunked of it stays its translation. */
  private closeChunks(): void {
    if (!this.chunker) return;
    this.chunker.final([]);
    const segmentId = this.segmentId(this.sequence + 1);
    if (this.translated.has(segmentId)) this.sequence += 1;
    const waiting = this.waiting.filter((u) => u.segmentId === segmentId);
    if (waiting.length > 0) waiting[waiting.length - 1]!.last = true;
    else if (this.translated.has(segmentId)) this.finishSegment(segmentId);
  }

  /** A segment's pieces are all done: its joined translation (or none) is its fate. */
  private finishSegment(segmentId: string): void {
    const done = this.translated.get(segmentId);
    this.translated.delete(segmentId);
    const text = done?.texts.join(' ').trim();
    this.decide(segmentId, done && text ? { language: done.target, text } : null, done?.source);
  }

  /**
   * Where the utterance was spoken, on the wall clock: recognition's word times on the track's audio
   * when it gives them, else from when it said speech started to where it ended.
   */
  private utteranceBounds(alt: stt.SpeechData, endOfSpeechAt: number): [number, number] {
    if (this.audioOrigin !== null && alt.endTime > 0 && alt.endTime >= alt.startTime) {
      return [Math.round(this.audioOrigin + alt.startTime * 1000), Math.round(this.audioOrigin + alt.endTime * 1000)];
    }
    const end = Math.round(endOfSpeechAt);
    return [Math.min(Math.round(this.speechStartedAt ?? end), end), end];
  }

  /**
   * A final segment's fate is known: its translation, or none. It is reported once every segment the
   * speaker said before it is; later decisions about it (an error after its translation) change nothing.
   */
  private decide(segmentId: string, translation: FinalSegment['translation'], language?: string | null): void {
    const entry = this.reports.find((r) => r.segment.segmentId === segmentId && !r.decided);
    if (!entry) return;
    entry.decided = true;
    entry.segment.translation = translation;
    if (language) entry.segment.language = language;
    while (this.reports[0]?.decided) {
      const { segment } = this.reports.shift()!;
      this.reporting = this.reporting
        .then(() => this.options.outputs.segment?.(segment))
        .catch((error: unknown) => this.options.onError?.(error));
    }
  }

  /** Past the cap, a new utterance joins the last waiting one of its direction (one translation catches up). */
  private enqueue(u: Utterance): void {
    const last = this.waiting[this.waiting.length - 1];
    if (this.waiting.length >= MAX_WAITING_UTTERANCES && last) {
      if (translationTaskKey(last.task) === translationTaskKey(u.task)) {
        // The combined translation belongs to the later segment; the earlier one has only what was translated of it before.
        if (last.segmentId !== u.segmentId) this.finishSegment(last.segmentId);
        last.text = [last.text, u.text].filter(Boolean).join(' ');
        last.segmentId = u.segmentId;
        last.endOfSpeechAt = u.endOfSpeechAt;
        last.wordStarts = [...last.wordStarts, ...u.wordStarts];
        last.last = u.last;
        this.options.observer?.utterance('merged', 'backlog');
        return;
      }
      const dropped = this.waiting.shift();
      if (dropped?.last) this.finishSegment(dropped.segmentId);
      this.options.observer?.utterance('dropped', 'backlog');
      this.options.onError?.(new Error(`translation of ${this.options.speaker.identity} behind: oldest waiting utterance dropped`));
    }
    this.waiting.push(u);
    this.working ??= this.work();
  }

  private async work(): Promise<void> {
    for (let u = this.waiting.shift(); u; u = this.waiting.shift()) {
      // Awaited even for a piece with nothing to say (it only closes its segment): `working` must be set
      // by `enqueue` before this loop can end and clear it.
      await (u.text ? this.translate(u).catch((error: unknown) => this.options.onError?.(error)) : Promise.resolve());
      // Untagged model output, nothing said, a failure: what was translated of it, else no translation.
      if (u.last) this.finishSegment(u.segmentId);
    }
    this.working = null;
  }

  private emit(promise: Promise<void>): void {
    promise.catch((error: unknown) => this.options.onError?.(error));
  }

  private async *frames(
    stream: tts.SynthesizeStream,
    source: string,
    target: string,
    u: Utterance,
    synthesisStartedAt: () => number,
  ): AsyncIterable<AudioFrame> {
    const { latency, observer } = this.options;
    const direction = directionLabel(source, target);
    let first = true;
    for await (const audio of stream) {
      if (audio === tts.SynthesizeStream.END_OF_STREAM) break;
      if (first) {
        first = false;
        const delay = this.now() - u.endOfSpeechAt;
        // The track is this far behind the speaker (a backlog of speech, a saturated worker): skip, do not fall further behind.
        if (delay > (this.options.maxSpeechDelayMs ?? MAX_SPEECH_DELAY_MS)) {
          observer?.utterance('dropped', 'late');
          return;
        }
        latency.record(direction, delay);
        observer?.firstAudio(source, target, delay);
        observer?.spokenChunk?.(source, target, { wordStarts: u.wordStarts, firstFrameAt: this.now(), speechEndAt: u.endOfSpeechAt });
        const at = synthesisStartedAt();
        if (at > 0) observer?.stage('synthesis', performance.now() - at);
      }
      const seconds = audio.frame.samplesPerChannel / audio.frame.sampleRate;
      latency.addAudio(direction, seconds);
      this.speakingUntil = Math.max(this.speakingUntil, this.now()) + seconds * 1000;
      yield audio.frame;
    }
  }

  private async translate(u: Utterance): Promise<void> {
    const { providers, outputs, roomLanguages, observer } = this.options;
    const key = translationTaskKey(u.task);
    const context = this.contexts.get(key) ?? [];
    const speak = this.service === 'full';
    let target = u.target;
    let source = u.source;
    let synthesis: tts.SynthesizeStream | null = null;
    let synthesisStartedAt = 0;
    let playing: Promise<void> = Promise.resolve();
    let pending = '';
    let translated = '';

    // Simultaneous speech that will start behind its words (after what the track still has to play) is spoken faster.
    const speed = this.chunker ? catchUpSpeed(Math.max(this.speakingUntil, this.now()) - u.endOfSpeechAt) : 1;
    const startSpeaking = (to: string): tts.SynthesizeStream | null => {
      source ??= roomLanguages.find((code) => code !== to) ?? null;
      if (!speak) return null;
      const stream = (speed > 1 ? providers.tts(to, speed) : providers.tts(to)).stream();
      playing = outputs.play(
        to,
        this.frames(stream, source ?? '?', to, u, () => synthesisStartedAt),
      );
      return stream;
    };
    const push = (text: string) => {
      if (!text) return;
      translated += text;
      if (!synthesis) return;
      synthesisStartedAt ||= performance.now();
      synthesis.pushText(text);
    };

    if (target) synthesis = startSpeaking(target);
    const translationStartedAt = performance.now();
    try {
      for await (const delta of providers.translator.translate({ task: u.task, text: u.text, context })) {
        if (target) {
          push(delta);
          continue;
        }
        pending += delta;
        const parsed = parseTargetTag(pending, roomLanguages);
        if (parsed.kind === 'pending') continue;
        if (parsed.kind === 'untagged') return; // the model did not follow the format: say nothing rather than guess
        target = parsed.target;
        synthesis = startSpeaking(target);
        push(parsed.rest);
      }
      observer?.stage('translation', performance.now() - translationStartedAt);
    } finally {
      if (synthesis) {
        synthesis.flush();
        synthesis.endInput();
      }
    }
    const text = matchLeadingCase(u.text, translated.trim());
    if (!target) return;
    if (text) {
      // The segment's translation so far: the caption grows chunk by chunk (one piece in sentence mode).
      const pieces = this.translated.get(u.segmentId) ?? { target, source, texts: [] };
      pieces.texts.push(text);
      this.translated.set(u.segmentId, pieces);
      if (u.last) this.finishSegment(u.segmentId);
      this.contexts.set(key, [...context, { text: u.text, translation: text }].slice(-CONTEXT_SEGMENTS));
      const { identity, trackSid } = this.options.speaker;
      const joined = pieces.texts.join(' ');
      await outputs.translation({ speakerIdentity: identity, trackSid, segmentId: u.segmentId, source, target, text: joined });
    } else {
      this.options.onError?.(new Error(`no translation for segment ${u.segmentId}: nothing said`));
    }
    if (!synthesis) {
      // Beyond the worker's capacity: the translation is a caption, not speech.
      if (text) observer?.utterance('dropped', 'captions_only');
      return;
    }
    if (this.chunker) {
      // Simultaneous: the next piece is translated and synthesized while this one plays (one ahead at most).
      const stream = synthesis;
      const before = this.playingAhead;
      this.playingAhead = playing.catch((error: unknown) => this.options.onError?.(error)).finally(() => stream.close());
      await before;
      return;
    }
    await playing;
    synthesis.close();
  }
}
