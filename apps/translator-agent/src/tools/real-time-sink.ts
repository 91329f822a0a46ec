import type { AudioFrame } from '@livekit/rtc-node';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FrameSink } from '../translation/language-output';

/** rtc-node's `AudioSource` buffers this much audio before `captureFrame` waits (its default queue). */
export const TRACK_QUEUE_MS = 1000;

/**
 * A track's audio source as `translate:file` plays into it: audio leaves in real time, and
 * `captureFrame` waits while a full queue of it is buffered, as rtc-node's `AudioSource` does, so a
 * backlog of translated speech shows as it would in a room. `endsAt` is when the last frame is heard.
 */
export class RealTimeSink implements FrameSink {
  private playhead = 0;

  constructor(
    readonly sampleRate: number,
    private readonly onFrame: (frame: AudioFrame) => void,
    private readonly now: () => number = Date.now,
    private readonly queueMs = TRACK_QUEUE_MS,
  ) {}

  async captureFrame(frame: AudioFrame): Promise<void> {
    this.onFrame(frame);
    this.playhead = Math.max(this.now(), this.playhead) + (frame.samplesPerChannel / frame.sampleRate) * 1000;
    const wait = this.playhead - this.now() - this.queueMs;
    if (wait > 0) await sleep(wait);
  }

  /** When the audio handed so far has been played out (epoch ms), 0 before any. */
  get endsAt(): number {
    return this.playhead;
  }
}
