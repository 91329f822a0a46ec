import { tts } from '@livekit/agents';
import type { AudioFrame } from '@livekit/rtc-node';
import { directionLabel } from '@app/domain/translation-routing';
import { performance } from 'node:perf_hooks';
import type { PipelineObserver } from '../metrics/agent-metrics';
import type { LatencyTracker } from './latency-tracker';
import type { Utterance } from './utterance-queue';

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

/** The bound on how far translated speech falls behind: an utterance not spoken within this of its end is captioned only. */
export const MAX_SPEECH_DELAY_MS = 3000;

export interface SpeechPacingOptions {
  latency: LatencyTracker;
  now: () => number;
  /** Simultaneous mode: each piece plays while the next is synthesized, spoken faster when behind. */
  simultaneous: boolean;
  maxSpeechDelayMs?: number;
  observer?: PipelineObserver;
  onError?: (error: unknown) => void;
}

/**
 * How one speaker's translated speech keeps up with them: how fast it is synthesized, whether it is
 * still worth playing when its first audio is ready, and how far playback runs ahead of translation.
 * Measures what was heard as it plays (latency, audio seconds, word lag).
 */
export class SpeechPacer {
  /** Simultaneous mode: when the speech handed to the track so far will have been heard (epoch ms). */
  private speakingUntil = 0;
  /** Simultaneous mode: the piece playing while the next is synthesized (one ahead at most). */
  private playingAhead: Promise<void> = Promise.resolve();

  constructor(private readonly options: SpeechPacingOptions) {}

  /**
   * Simultaneous mode: how a piece is spoken (faster when it will start behind its words, after what the
   * track still has to play); null in sentence mode (as the voice speaks).
   */
  deliveryFor(u: Utterance): { speed: number } | null {
    const { simultaneous, now } = this.options;
    return simultaneous ? { speed: catchUpSpeed(Math.max(this.speakingUntil, now()) - u.endOfSpeechAt) } : null;
  }

  /** The frames of an utterance's synthesis as the track plays them; none if it would start too late. */
  async *frames(
    stream: tts.SynthesizeStream,
    source: string,
    target: string,
    u: Utterance,
    synthesisStartedAt: () => number,
  ): AsyncIterable<AudioFrame> {
    const { latency, observer, now } = this.options;
    const direction = directionLabel(source, target);
    let first = true;
    for await (const audio of stream) {
      if (audio === tts.SynthesizeStream.END_OF_STREAM) break;
      if (first) {
        first = false;
        const delay = now() - u.endOfSpeechAt;
        // The track is this far behind the speaker (a backlog of speech, a saturated worker): skip, do not fall further behind.
        if (delay > (this.options.maxSpeechDelayMs ?? MAX_SPEECH_DELAY_MS)) {
          observer?.utterance('dropped', 'late');
          return;
        }
        latency.record(direction, delay);
        observer?.firstAudio(source, target, delay);
        observer?.spokenChunk?.(source, target, { wordStarts: u.wordStarts, firstFrameAt: now(), speechEndAt: u.endOfSpeechAt });
        const at = synthesisStartedAt();
        if (at > 0) observer?.stage('synthesis', performance.now() - at);
      }
      const seconds = audio.frame.samplesPerChannel / audio.frame.sampleRate;
      latency.addAudio(direction, seconds);
      this.speakingUntil = Math.max(this.speakingUntil, now()) + seconds * 1000;
      yield audio.frame;
    }
  }

  /**
   * An utterance's speech is handed to its track: in sentence mode, resolves once it played; in
   * simultaneous mode, once the piece before it played (the next is translated while this one plays).
   */
  async handOff(playing: Promise<void>, stream: tts.SynthesizeStream): Promise<void> {
    if (this.options.simultaneous) {
      const before = this.playingAhead;
      this.playingAhead = playing.catch((error: unknown) => this.options.onError?.(error)).finally(() => stream.close());
      await before;
      return;
    }
    await playing;
    stream.close();
  }

  /** Resolves once the speech handed off so far has played. */
  played(): Promise<void> {
    return this.playingAhead;
  }
}
