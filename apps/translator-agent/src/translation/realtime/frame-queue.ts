import type { AudioFrame } from '@livekit/rtc-node';

/** Frames handed over as they arrive, read once as an async iterable (one segment's speech for `play`). */
export class FrameQueue implements AsyncIterable<AudioFrame> {
  private readonly frames: AudioFrame[] = [];
  private ended = false;
  private wake: (() => void) | null = null;

  push(frame: AudioFrame): void {
    if (this.ended) return;
    this.frames.push(frame);
    this.wake?.();
  }

  end(): void {
    this.ended = true;
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<AudioFrame> {
    for (;;) {
      const frame = this.frames.shift();
      if (frame) {
        yield frame;
        continue;
      }
      if (this.ended) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = null;
    }
  }
}
