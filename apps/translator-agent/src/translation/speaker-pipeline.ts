/**
 * The composed speaker pipeline (recognition → translation → speech for one speaker track), as the
 * steps it is made of: `speech-timing` (where speech was on the wall clock), `segment-fates` (each
 * final segment reported once, in spoken order), `utterance-queue` (the capped backlog),
 * `utterance-translation` (translation into captions and synthesis), `speech-pacing` (how speech
 * keeps up with the speaker). Longer than ~300 lines on purpose: this file keeps the recognition loop
 * (restarts, CPU priority) and the assembly of utterances from its events (segment ids, routing,
 * simultaneous chunks), and both work on the current recognition stream's state.
 */
import { primaryLanguage, recognitionLanguages, routeUtterance, type UtteranceRoute } from '@app/domain/translation-routing';
import { stt } from '@livekit/agents';
import type { AudioFrame } from '@livekit/rtc-node';
import type { StreamService } from '../capacity/stream-budget';
import { restoreCasing } from './casing';
import { RecognitionGlossary } from './recognition-glossary';
import { SegmentFates } from './segment-fates';
import type { SpeakerStream, SpeakerStreamOptions, TranscriptSegment } from './speaker-stream';
import { SpeechPacer } from './speech-pacing';
import { backgroundable, type SpeechProviders } from './speech-providers';
import { SpeechTiming } from './speech-timing';
import { revisedWords, StableChunker, type ChunkPolicy, type TimedWord } from './stable-chunks';
import { translationTaskFor } from './translation-task';
import { UtteranceQueue, type Utterance } from './utterance-queue';
import { UtteranceTranslation } from './utterance-translation';

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
  private readonly timing: SpeechTiming;
  private readonly fates: SegmentFates;
  private readonly queue: UtteranceQueue;
  private readonly pacer: SpeechPacer;
  private sequence = 0;
  private closed = false;
  private wake: (() => void) | null = null;
  private service: StreamService;
  /** The recognizer's priority no longer matches the service: open it again at the next pause. */
  private reprioritize = false;
  private reopening = false;
  private inSpeech = false;
  private readonly chunker: StableChunker | null;
  private lastInterim = '';
  /** The utterance's latest hypothesis (simultaneous mode): its last words are committed when speech ends. */
  private lastHypothesis: stt.SpeechData | null = null;
  /** The direction the current utterance's chunks are translated in (simultaneous mode), once one was committed. */
  private chunkDirection: { source: string; target: string } | null = null;
  private readonly recognition: RecognitionGlossary;

  constructor(private readonly options: SpeakerPipelineOptions) {
    this.now = options.now ?? Date.now;
    this.service = options.service ?? 'full';
    this.chunker = options.simultaneous ? new StableChunker(options.simultaneous, (text) => this.recognition.startsPhrase(text)) : null;
    const onError = (error: unknown) => options.onError?.(error);
    this.timing = new SpeechTiming(this.now);
    this.fates = new SegmentFates((segment) => options.outputs.segment?.(segment), onError);
    this.pacer = new SpeechPacer({ ...options, now: this.now, simultaneous: this.chunker !== null, onError });
    const translation = new UtteranceTranslation({
      ...options,
      fates: this.fates,
      pacer: this.pacer,
      speaking: () => this.service === 'full',
    });
    this.queue = new UtteranceQueue({
      speakerIdentity: options.speaker.identity,
      fates: this.fates,
      translate: (u) => translation.translate(u),
      observer: options.observer,
      onError: options.onError,
    });
    const languages = recognitionLanguages(options.mode, options.roomLanguages, options.speaker.languages);
    this.engine = options.providers.stt(languages);
    this.engine.on('error', (error) => {
      options.observer?.providerError('stt', error.recoverable);
      options.onError?.(error.error);
    });
    this.recognition = new RecognitionGlossary(this.engine, languages, options.roomLanguages, options.glossaries);
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
      this.timing.pushed(frame);
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
      this.timing.streamOpened();
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
    this.recognition.close();
    await this.queue.idle();
    await this.pacer.played();
    await this.fates.settled();
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
        this.timing.speechStarted();
        this.inSpeech = true;
        return;
      case stt.SpeechEventType.END_OF_SPEECH: {
        this.timing.speechEnded(event.speechEndTime);
        this.inSpeech = false;
        if (this.lastHypothesis) this.onHypothesis(this.lastHypothesis, true);
        // Its final transcript still comes: ending the input only stops what comes after.
        this.reopenRecognizer();
        return;
      }
      case stt.SpeechEventType.INTERIM_TRANSCRIPT:
      case stt.SpeechEventType.PREFLIGHT_TRANSCRIPT: {
        const alt = event.alternatives?.[0];
        const text = alt && this.recognition.written(alt.text.trim(), alt.language);
        // A recognizer may repeat an unchanged hypothesis (PocketSphinx does, for the chunker): one caption for it.
        if (alt && text && text !== this.lastInterim) {
          this.lastInterim = text;
          this.emit(this.options.outputs.transcript(this.segment(alt, text, false, this.segmentId(this.sequence + 1))));
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

  private segment(alt: stt.SpeechData, text: string, final: boolean, segmentId: string): TranscriptSegment {
    const { identity, trackSid } = this.options.speaker;
    return { speakerIdentity: identity, trackSid, segmentId, language: alt.language || null, text, final };
  }

  /** Which way the utterance is translated, if at all: by the room's mode, the speaker's languages and what was detected. */
  private route(alt: stt.SpeechData): UtteranceRoute {
    const { mode, roomLanguages, speaker } = this.options;
    return routeUtterance({ mode, roomLanguages, speakerLanguages: speaker.languages, detectedLanguage: alt.language || null });
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
      // Cuts wait after a phrase's first words; one the chunk bound still splits stays as heard in each chunk.
      text: this.recognition.written(restoreCasing(words.map((w) => w.text).join(' '), first && i === 0), base.source),
      endOfSpeechAt: this.timing.wallClock(words[words.length - 1]!.end),
      wordStarts: words.map((w) => this.timing.wallClock(w.start)),
      last: false,
    }));
  }

  /**
   * Simultaneous mode: the stable chunks of a partial hypothesis go to translation before the utterance
   * ends; at its end (`ending`), all of its words not yet committed, without waiting for the final pass.
   */
  private onHypothesis(alt: stt.SpeechData, ending = false): void {
    if (!this.chunker || !alt.words?.length) return;
    this.lastHypothesis = alt;
    const route = this.route(alt);
    // Only a known direction is chunked: a mono room's detection step needs the whole utterance.
    if (route.kind !== 'translate' || !this.options.providers.supports(route.source, route.target)) return;
    const segmentId = this.segmentId(this.sequence + 1);
    const first = !this.fates.inTranslation(segmentId) && !this.queue.holds(segmentId);
    const task = translationTaskFor(route, this.options.roomLanguages)!;
    const chunks = ending ? this.chunker.ending() : this.chunker.hypothesis(this.words(alt), alt.endTime);
    if (chunks.length === 0) return;
    this.chunkDirection = { source: route.source, target: route.target };
    this.fates.translating(segmentId, route.target, route.source);
    const pieces = this.pieces(chunks, { segmentId, task, source: route.source, target: route.target }, first);
    for (const piece of pieces) this.queue.enqueue(piece);
  }

  private onFinal(event: stt.SpeechEvent): void {
    const alt = event.alternatives?.[0];
    const text = alt && this.recognition.written(alt.text.trim(), alt.language);
    this.lastInterim = '';
    this.lastHypothesis = null;
    if (!alt || !text) {
      this.closeChunks();
      return;
    }
    this.sequence += 1;
    const segmentId = this.segmentId(this.sequence);
    const route = this.route(alt);
    const { endOfSpeechAt, startedAt, endedAt, recognitionMs } = this.timing.finalHeard(alt);
    if (recognitionMs !== null) this.options.observer?.stage('recognition', recognitionMs);
    const source = route.kind === 'translate' ? route.source : null;
    const { identity, trackSid, languages } = this.options.speaker;
    const detected = alt.language ? primaryLanguage(alt.language) : '';
    const words = this.words(alt);
    // Chunks of it went to translation while it was said (simultaneous mode): the words after them
    // follow, and what the final recognition did not keep of them is said in the segment and counted.
    const chunked = this.chunker !== null && this.fates.inTranslation(segmentId);
    const sent = chunked ? [...this.chunker!.committedWords()] : [];
    const rest = chunked ? this.chunker!.final(words) : [];
    const revised = revisedWords(sent, words);
    this.countRevised(revised.length);
    const committedText = [...sent, ...rest.flat()].map((w) => w.text).join(' ');
    this.fates.heard({
      speakerIdentity: identity,
      trackSid,
      segmentId,
      language: source || detected || languages[0] || this.options.roomLanguages[0],
      text,
      translation: null,
      startedAt,
      endedAt,
      ...(chunked
        ? {
            committed: {
              text: this.recognition.written(restoreCasing(committedText), alt.language),
              revisedWords: revised.map((w) => w.text),
              revised: revised.length > 0,
            },
          }
        : {}),
    });
    this.emit(
      this.options.outputs.transcript({
        ...this.segment(alt, text, true, segmentId),
        language: source ?? (alt.language || null),
        ...(alt.endTime > 0 ? { audioEndTime: alt.endTime } : {}),
      }),
    );
    const task = translationTaskFor(route, this.options.roomLanguages);
    if (!task || (task.kind === 'fixed' && !this.options.providers.supports(task.source, task.target))) {
      this.chunker?.final([]);
      this.fates.decide(segmentId, null);
      return;
    }
    const target = route.kind === 'translate' ? route.target : null;
    if (chunked) {
      // Chunks of it are translated already: the words after them follow, and the last piece closes the segment.
      const pieces = this.pieces(rest, { segmentId, task, source, target }, false);
      const last = pieces[pieces.length - 1] ?? { segmentId, task, text: '', source, target, endOfSpeechAt, wordStarts: [], last: true };
      last.last = true;
      for (const piece of pieces.length > 0 ? pieces : [last]) this.queue.enqueue(piece);
      return;
    }
    this.chunker?.final([]);
    const wordStarts = words.map((w) => this.timing.wallClock(w.start));
    this.queue.enqueue({ segmentId, task, text, source, target, endOfSpeechAt, wordStarts, last: true });
  }

  /** An utterance that ends with nothing recognized in its final pass: what was chunked of it stays its translation. */
  private closeChunks(): void {
    if (!this.chunker) return;
    // The final recognition kept none of the words committed: every one was revised.
    this.countRevised(this.chunker.committedWords().length);
    this.chunker.final([]);
    const segmentId = this.segmentId(this.sequence + 1);
    if (this.fates.inTranslation(segmentId)) this.sequence += 1;
    if (!this.queue.closeSegment(segmentId) && this.fates.inTranslation(segmentId)) this.fates.finish(segmentId);
  }

  /** Committed words the final recognition did not keep, in the direction they were translated in; the utterance's chunks end here. */
  private countRevised(count: number): void {
    const direction = this.chunkDirection;
    this.chunkDirection = null;
    if (direction && count > 0) this.options.observer?.revisedWords?.(direction.source, direction.target, count);
  }

  private emit(promise: Promise<void>): void {
    promise.catch((error: unknown) => this.options.onError?.(error));
  }
}
