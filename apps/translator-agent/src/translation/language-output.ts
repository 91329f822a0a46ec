import { AudioResampler, type AudioFrame } from '@livekit/rtc-node';
import { ownFrame } from './frames';

/** Where a language's speech goes: the published track's source (an rtc-node `AudioSource`). */
export interface FrameSink {
  readonly sampleRate: number;
  captureFrame(frame: AudioFrame): Promise<void>;
}

/**
 * One published language track: utterances of every speaker play one after the other, never
 * interleaved. Audio that arrives before the track is published waits for it instead of being lost.
 */
export class LanguageOutput {
  private tail: Promise<void> = Promise.resolve();
  private sink: FrameSink | null = null;
  private attach!: () => void;
  private readonly attached = new Promise<void>((resolve) => (this.attach = resolve));

  setSink(sink: FrameSink): void {
    this.sink = sink;
    this.attach();
  }

  /** Lets queued and later audio run through without a track (the room is closing). */
  close(): void {
    this.attach();
  }

  play(frames: AsyncIterable<AudioFrame>): Promise<void> {
    const turn = this.tail.then(async () => {
      await this.attached;
      let resampler: AudioResampler | null = null;
      for await (const synthesized of frames) {
        const frame = ownFrame(synthesized);
        const sink = this.sink;
        if (!sink) continue;
        // A provider with other rates (ElevenLabs: 22.05 kHz) is resampled to the track's.
        if (frame.sampleRate !== sink.sampleRate) resampler ??= new AudioResampler(frame.sampleRate, sink.sampleRate, 1);
        for (const out of resampler ? resampler.push(frame) : [frame]) await sink.captureFrame(out);
      }
      if (resampler && this.sink) for (const out of resampler.flush()) await this.sink.captureFrame(out);
    });
    this.tail = turn.catch(() => undefined);
    return turn;
  }
}
