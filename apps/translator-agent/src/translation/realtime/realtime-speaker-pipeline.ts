import { directionLabel } from '@app/domain/translation-routing';
import { AudioFrame } from '@livekit/rtc-node';
import type { StreamService } from '../../capacity/stream-budget';
import { SincResampler } from '../../local/sinc-resampler';
import type { SpeakerStream, SpeakerStreamOptions } from '../speaker-stream';
import { FrameQueue } from './frame-queue';
import { REALTIME_SAMPLE_RATE } from './protocol';
import { SessionRefused, TranslationSession, type TranslationSessionOptions } from './translation-session';

export interface RealtimeSpeakerPipelineOptions extends SpeakerStreamOptions {
  /** Where and how to open sessions; the target language is the room's other one. */
  session: Omit<TranslationSessionOptions, 'targetLanguage'>;
  /** No delta for this long ends a transcript segment (the protocol has no turns). */
  idleMs?: number;
}

/** The provider's deltas stop this long: the segment is over. */
export const SEGMENT_IDLE_MS = 1200;
const MAX_RESTART_DELAY_MS = 10_000;
/** Translated speech goes to the track in 20 ms frames. */
const FRAME_SAMPLES = REALTIME_SAMPLE_RATE / 50;

interface OpenSegment {
  segmentId: string;
  input: string;
  output: string;
  startedAt: number;
  lastAt: number;
  speech: FrameQueue | null;
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
  private dropped: (() => void) | null = null;
  private service: StreamService;
  private readonly finishing: Promise<void>[] = [];

  constructor(private readonly options: RealtimeSpeakerPipelineOptions) {
    this.now = options.now ?? Date.now;
    this.service = options.service ?? 'full';
    const [a, b] = options.roomLanguages;
    // The speaker's declared language is the source; the room's other language the target.
    this.source = options.speaker.languages.find((l) => l === a || l === b) ?? a;
    this.target = this.source === a ? b : a;
  }

  get currentService(): StreamService {
    return this.service;
  }

  setService(service: StreamService): void {
    this.service = service;
  }

  pushFrame(frame: AudioFrame): void {
    if (this.closed || !this.session) return; // between sessions the speech is lost: the error says so
    if (frame.sampleRate !== this.resamplerRate) {
      this.resamplerRate = frame.sampleRate;
      this.resampler = frame.sampleRate === REALTIME_SAMPLE_RATE ? null : new SincResampler(frame.sampleRate, REALTIME_SAMPLE_RATE);
    }
    let samples = frame.data.subarray(0, frame.samplesPerChannel * frame.channels);
    if (frame.channels > 1) samples = Int16Array.from({ length: frame.samplesPerChannel }, (_, i) => samples[i * frame.channels]!);
    this.session.append(this.resampler ? this.resampler.push(samples) : samples);
  }

  async run(): Promise<void> {
    let delay = this.options.restartDelayMs ?? 500;
    while (!this.closed) {
      const lost = new Promise<void>((resolve) => (this.dropped = resolve));
      try {
        this.session = await TranslationSession.open({ ...this.options.session, targetLanguage: this.target }, this.sessionEvents());
        delay = this.options.restartDelayMs ?? 500;
      } catch (error) {
        this.options.observer?.providerError('realtime', false);
        this.options.onError?.(
          error instanceof SessionRefused ? new Error(`realtime translation session refused: ${error.message}`) : error,
        );
      }
      if (this.session) {
        await lost;
        if (this.closed) break;
        this.session = null;
        // The provider's context went with the session: what it said so far is one segment.
        this.endSegment();
        this.options.observer?.recognitionRestart();
        this.options.observer?.providerError('realtime', true);
        this.options.onError?.(
          new Error(`realtime translation session of ${this.options.speaker.identity} dropped; reopening in ${delay} ms`),
        );
      }
      if (this.closed) break;
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
    await Promise.all(this.finishing);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.wake?.();
    this.dropped?.();
  }

  private sessionEvents() {
    return {
      inputText: (delta: string) => {
        const s = this.open();
        s.input += delta;
        this.emit(this.options.outputs.transcript(this.transcript(s, false)));
      },
      outputText: (delta: string) => {
        const s = this.open();
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
      closed: (expected: boolean) => {
        if (!expected) this.dropped?.();
      },
    };
  }

  /** The open segment, or a new one: a delta after an idle gap starts the next segment. */
  private open(): OpenSegment {
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
        playing: Promise.resolve(),
        timer: null,
      };
    }
    const s = this.segment;
    s.lastAt = now;
    if (s.timer) clearTimeout(s.timer);
    s.timer = setTimeout(() => this.endSegment(), this.options.idleMs ?? SEGMENT_IDLE_MS);
    return s;
  }

  private speak(samples: Int16Array, sampleRate: number): void {
    const s = this.open();
    const direction = directionLabel(this.source, this.target);
    if (this.service !== 'full') {
      if (!s.speech) this.options.observer?.utterance('dropped', 'captions_only');
      return;
    }
    if (!s.speech) {
      s.speech = new FrameQueue();
      const delay = this.now() - s.startedAt;
      this.options.latency.record(direction, delay);
      this.options.observer?.firstAudio(this.source, this.target, delay);
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
