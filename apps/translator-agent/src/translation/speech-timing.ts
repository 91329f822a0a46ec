import type { stt } from '@livekit/agents';
import type { AudioFrame } from '@livekit/rtc-node';
import { performance } from 'node:perf_hooks';

/** Where one final utterance was on the wall clock, and how long recognition took after its speech ended. */
export interface UtteranceTimes {
  /** When the speech ended (epoch ms): latency counts from here. */
  endOfSpeechAt: number;
  startedAt: number;
  endedAt: number;
  /** From the end of speech to its final transcript, on the monotonic clock; null when no end was heard. */
  recognitionMs: number | null;
}

/**
 * One speaker's recognition stream on the wall clock: when its audio began, where speech started and
 * ended, and so where an utterance's words were said.
 */
export class SpeechTiming {
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

  constructor(private readonly now: () => number) {}

  /** A new recognition stream: its audio starts at its first frame. */
  streamOpened(): void {
    this.pushedSeconds = 0;
    this.audioOrigin = null;
  }

  /** A frame went into the recognition stream. */
  pushed(frame: AudioFrame): void {
    this.pushedSeconds += frame.samplesPerChannel / frame.sampleRate;
    // The frame arrived as its audio ended: the stream's audio began this long before.
    this.audioOrigin ??= this.now() - this.pushedSeconds * 1000;
  }

  speechStarted(): void {
    this.speechEndedAt = null;
    this.speechStartedAt = this.now();
  }

  /**
   * A recognizer that says where in its audio the speech ended (`speechEndTime`, PocketSphinx's word
   * times) is told the end only after its trailing silence: latency counts from the speech's end, not
   * from being told.
   */
  speechEnded(speechEndTime: number | undefined): void {
    const late = speechEndTime !== undefined ? this.pushedSeconds - speechEndTime : 0;
    const lateMs = late > 0 && late < 10 ? late * 1000 : 0;
    this.speechEndedAt = this.now() - lateMs;
    this.speechEndedMark = performance.now() - lateMs;
  }

  /** A final transcript came: where its utterance was; the next one is timed afresh. */
  finalHeard(alt: stt.SpeechData): UtteranceTimes {
    const endOfSpeechAt = this.speechEndedAt ?? this.now();
    const [startedAt, endedAt] = this.utteranceBounds(alt, endOfSpeechAt);
    const recognitionMs = this.speechEndedMark !== null ? performance.now() - this.speechEndedMark : null;
    this.speechEndedMark = null;
    this.speechEndedAt = null;
    this.speechStartedAt = null;
    return { endOfSpeechAt, startedAt, endedAt, recognitionMs };
  }

  /** The wall-clock instant of a time on the recognition stream's audio (seconds). */
  wallClock(seconds: number): number {
    return Math.round((this.audioOrigin ?? this.now()) + seconds * 1000);
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
}
