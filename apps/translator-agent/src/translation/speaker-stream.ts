/**
 * What a speaker stream is, whichever pipeline runs it (the composed `SpeakerPipeline`, or a hosted
 * speech-to-speech session): the options the room gives it, and what it hands the room back.
 */
import type { TranslationMode } from '@app/domain/translation-routing';
import type { AudioFrame } from '@livekit/rtc-node';
import type { StreamService } from '../capacity/stream-budget';
import type { PipelineObserver } from '../metrics/agent-metrics';
import type { LatencyTracker } from './latency-tracker';
import type { GlossaryHolder } from './room-glossaries';

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
  /**
   * Simultaneous mode, when chunks of it went to translation while it was said: the words sent (in
   * order, what the listener heard translated) and those of them the final recognition (`text`)
   * replaced or dropped. `revised` is true when there were any.
   */
  committed?: { text: string; revisedWords: string[]; revised: boolean };
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
  /** The room's glossaries now: read per utterance, so a change applies from the next one. */
  glossaries?: GlossaryHolder;
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

/** A speaker no configured pipeline can translate: heard and ignored until the track ends (the status says why). */
export class UntranslatedStream implements SpeakerStream {
  private ended: (() => void) | null = null;
  private readonly done = new Promise<void>((resolve) => (this.ended = resolve));

  constructor(private service: StreamService = 'full') {}

  get currentService(): StreamService {
    return this.service;
  }

  setService(service: StreamService): void {
    this.service = service;
  }

  pushFrame(): void {}

  run(): Promise<void> {
    return this.done;
  }

  close(): void {
    this.ended?.();
  }
}
