import { directionLabel, recognitionLanguages, routeUtterance, type TranslationMode } from '@app/domain/translation-routing';
import { stt, tts } from '@livekit/agents';
import type { AudioFrame } from '@livekit/rtc-node';
import type { LatencyTracker } from './latency-tracker';
import { parseTargetTag } from './tagged-output';
import { translationTaskFor, translationTaskKey, type TranslationTask } from './translation-agent';
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

/** Where a pipeline's results go: captions as text streams, speech onto the target language's track. */
export interface TranslationOutputs {
  transcript(segment: TranscriptSegment): Promise<void>;
  translation(segment: TranslationSegment): Promise<void>;
  /** Plays one utterance's speech on the target's track, after what is queued there; resolves once played. */
  play(target: string, frames: AsyncIterable<AudioFrame>): Promise<void>;
}

/** The three stages of a pipeline, hosted or local; the very same `SpeakerPipeline` drives any of them. */
export interface SpeechProviders {
  readonly label: string;
  /** Speech recognition listening for these languages (one in dual mode, both in mono). */
  stt(languages: string[]): stt.STT;
  translator: TextTranslator;
  /** Streaming synthesis in this language (a provider's own, or a sentence-level StreamAdapter). */
  tts(language: string): tts.TTS;
  /** Whether speech in `source` can be translated into `target`. */
  supports(source: string, target: string): boolean;
  /** Why not, when `supports` says no: the missing engine and the env that selects a hosted provider for it. */
  whyNot?(source: string, target: string): string;
  close?(): Promise<void>;
}

export interface SpeakerPipelineOptions {
  providers: SpeechProviders;
  mode: TranslationMode;
  roomLanguages: readonly [string, string];
  speaker: { identity: string; languages: readonly string[]; trackSid: string };
  /** Unique across tracks and reconnects: segment ids are `<prefix>-<n>`. */
  segmentPrefix: string;
  outputs: TranslationOutputs;
  latency: LatencyTracker;
  now?: () => number;
  onError?: (error: unknown) => void;
  /** Recognition restarts after its stream ended, waiting this long at first, doubling up to 10 s. */
  restartDelayMs?: number;
}

interface Utterance {
  segmentId: string;
  task: TranslationTask;
  text: string;
  source: string | null;
  target: string | null;
  endOfSpeechAt: number;
}

/** Utterances waiting behind the one being translated; past this, new ones are merged into the last. */
export const MAX_WAITING_UTTERANCES = 2;
/** Earlier segments (with their translations) given to the translator with each new one. */
export const CONTEXT_SEGMENTS = 3;
const MAX_RESTART_DELAY_MS = 10_000;

/**
 * One speaker's audio → streaming recognition → per utterance, a streaming translation piped into
 * streaming synthesis on the target language's track. Utterances of a speaker stay in order and
 * nothing waits for a whole turn. When recognition's stream ends (a provider's session limit,
 * retries spent) it is opened again with backoff while the track is listened to.
 */
export class SpeakerPipeline {
  private readonly engine: stt.STT;
  private speech: stt.SpeechStream | null = null;
  private readonly now: () => number;
  private speechEndedAt: number | null = null;
  /** Seconds of audio pushed into the current recognition stream. */
  private pushedSeconds = 0;
  private sequence = 0;
  private closed = false;
  private readonly waiting: Utterance[] = [];
  private working: Promise<void> | null = null;
  private readonly contexts = new Map<string, { text: string; translation: string }[]>();
  private wake: (() => void) | null = null;

  constructor(private readonly options: SpeakerPipelineOptions) {
    this.now = options.now ?? Date.now;
    const languages = recognitionLanguages(options.mode, options.roomLanguages, options.speaker.languages);
    this.engine = options.providers.stt(languages);
    this.engine.on('error', (error) => options.onError?.(error.error));
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
    } catch {
      // The stream ended under us; the restart loop opens a new one.
    }
  }

  /** Consumes recognition until `close()`; resolves once queued translations are spoken. */
  async run(): Promise<void> {
    let delay = this.options.restartDelayMs ?? 500;
    while (!this.closed) {
      const speech = this.engine.stream();
      this.speech = speech;
      this.pushedSeconds = 0;
      let heard = false;
      for await (const event of speech) {
        if (event.type === stt.SpeechEventType.FINAL_TRANSCRIPT) heard = true;
        this.onSpeech(event);
      }
      this.speech = null;
      speech.close();
      if (this.closed) break;
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
        return;
      case stt.SpeechEventType.END_OF_SPEECH: {
        // A recognizer that says where in its audio the speech ended (PocketSphinx's word times) is told
        // the end only after its trailing silence: latency counts from the speech's end, not from being told.
        const late = event.speechEndTime !== undefined ? this.pushedSeconds - event.speechEndTime : 0;
        this.speechEndedAt = this.now() - (late > 0 && late < 10 ? late * 1000 : 0);
        return;
      }
      case stt.SpeechEventType.INTERIM_TRANSCRIPT:
      case stt.SpeechEventType.PREFLIGHT_TRANSCRIPT: {
        const alt = event.alternatives?.[0];
        if (alt?.text.trim()) this.emit(this.options.outputs.transcript(this.segment(alt, false, this.segmentId(this.sequence + 1))));
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

  private onFinal(event: stt.SpeechEvent): void {
    const alt = event.alternatives?.[0];
    const text = alt?.text.trim();
    if (!alt || !text) return;
    this.sequence += 1;
    const segmentId = this.segmentId(this.sequence);
    const route = routeUtterance({
      mode: this.options.mode,
      roomLanguages: this.options.roomLanguages,
      speakerLanguages: this.options.speaker.languages,
      detectedLanguage: alt.language || null,
    });
    const endOfSpeechAt = this.speechEndedAt ?? this.now();
    this.speechEndedAt = null;
    const source = route.kind === 'translate' ? route.source : null;
    this.emit(
      this.options.outputs.transcript({
        ...this.segment(alt, true, segmentId),
        language: source ?? (alt.language || null),
        ...(alt.endTime > 0 ? { audioEndTime: alt.endTime } : {}),
      }),
    );
    const task = translationTaskFor(route, this.options.roomLanguages);
    if (!task) return;
    if (task.kind === 'fixed' && !this.options.providers.supports(task.source, task.target)) return;
    const target = route.kind === 'translate' ? route.target : null;
    this.enqueue({ segmentId, task, text, source, target, endOfSpeechAt });
  }

  /** Past the cap, a new utterance joins the last waiting one of its direction (one translation catches up). */
  private enqueue(u: Utterance): void {
    const last = this.waiting[this.waiting.length - 1];
    if (this.waiting.length >= MAX_WAITING_UTTERANCES && last) {
      if (translationTaskKey(last.task) === translationTaskKey(u.task)) {
        last.text = `${last.text} ${u.text}`;
        last.segmentId = u.segmentId;
        return;
      }
      this.waiting.shift();
      this.options.onError?.(new Error(`translation of ${this.options.speaker.identity} behind: oldest waiting utterance dropped`));
    }
    this.waiting.push(u);
    this.working ??= this.work();
  }

  private async work(): Promise<void> {
    for (let u = this.waiting.shift(); u; u = this.waiting.shift()) {
      await this.translate(u).catch((error: unknown) => this.options.onError?.(error));
    }
    this.working = null;
  }

  private emit(promise: Promise<void>): void {
    promise.catch((error: unknown) => this.options.onError?.(error));
  }

  private async *frames(stream: tts.SynthesizeStream, direction: string, u: Utterance): AsyncIterable<AudioFrame> {
    const { latency } = this.options;
    let first = true;
    for await (const audio of stream) {
      if (audio === tts.SynthesizeStream.END_OF_STREAM) break;
      if (first) {
        latency.record(direction, this.now() - u.endOfSpeechAt);
        first = false;
      }
      latency.addAudio(direction, audio.frame.samplesPerChannel / audio.frame.sampleRate);
      yield audio.frame;
    }
  }

  private async translate(u: Utterance): Promise<void> {
    const { providers, outputs, roomLanguages } = this.options;
    const key = translationTaskKey(u.task);
    const context = this.contexts.get(key) ?? [];
    let target = u.target;
    let source = u.source;
    let synthesis: tts.SynthesizeStream | null = null;
    let playing: Promise<void> = Promise.resolve();
    let pending = '';
    let translated = '';

    const startSpeaking = (to: string) => {
      source ??= roomLanguages.find((code) => code !== to) ?? null;
      const stream = providers.tts(to).stream();
      playing = outputs.play(to, this.frames(stream, directionLabel(source ?? '?', to), u));
      return stream;
    };
    const push = (text: string) => {
      if (!text) return;
      translated += text;
      synthesis?.pushText(text);
    };

    if (target) synthesis = startSpeaking(target);
    try {
      for await (const delta of providers.translator.translate({ task: u.task, text: u.text, context })) {
        if (synthesis) {
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
    } finally {
      if (synthesis) {
        synthesis.flush();
        synthesis.endInput();
      }
    }
    const text = translated.trim();
    if (!synthesis || !target) return;
    if (text) {
      this.contexts.set(key, [...context, { text: u.text, translation: text }].slice(-CONTEXT_SEGMENTS));
      const { identity, trackSid } = this.options.speaker;
      await outputs.translation({ speakerIdentity: identity, trackSid, segmentId: u.segmentId, source, target, text });
    } else {
      this.options.onError?.(new Error(`no translation for segment ${u.segmentId}: nothing said`));
    }
    await playing;
    synthesis.close();
  }
}
