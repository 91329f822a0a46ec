/**
 * How many speaker streams a worker serves in full (recognition, translation, synthesis) and which
 * are captions only. State only: the worker's process holds one, job processes ask it through the
 * load channel (load-channel.ts), the benchmark and tests hold one in-process.
 */

/** `full`: captions and translated speech. `captions`: captions (transcript and translation text), no speech. */
export type StreamService = 'full' | 'captions';

/** What a room asks when a speaker's track is subscribed, and tells when it ends. */
export interface StreamAdmission {
  admit(streamId: string): Promise<StreamService>;
  release(streamId: string): void;
  /** Called when a captions-only stream of this admission is given full service (a full one ended). */
  onPromote(listener: (streamId: string) => void): void;
}

/**
 * Streams beyond `capacity` get captions only, the newest first: the speakers already heard keep their
 * voice. When a full stream ends, the oldest captions-only stream is promoted.
 */
export class StreamBudget {
  private readonly full = new Set<string>();
  /** Captions-only streams, oldest first. */
  private readonly waiting: string[] = [];

  constructor(readonly capacity: number) {
    if (!(capacity >= 1)) throw new Error(`stream capacity must be at least 1 (got ${capacity})`);
  }

  admit(streamId: string): StreamService {
    if (this.full.has(streamId)) return 'full';
    if (this.waiting.includes(streamId)) return 'captions';
    if (this.full.size < this.capacity) {
      this.full.add(streamId);
      return 'full';
    }
    this.waiting.push(streamId);
    return 'captions';
  }

  /** Frees the stream's place; returns the stream promoted into it, if any. */
  release(streamId: string): string | null {
    const index = this.waiting.indexOf(streamId);
    if (index !== -1) this.waiting.splice(index, 1);
    if (!this.full.delete(streamId)) return null;
    const promoted = this.waiting.shift();
    if (promoted === undefined) return null;
    this.full.add(promoted);
    return promoted;
  }

  get streams(): { full: number; captions: number } {
    return { full: this.full.size, captions: this.waiting.length };
  }

  /** Active streams' cost ÷ capacity: 1 when every full place is taken (LiveKit's threshold). */
  get load(): number {
    return (this.full.size + this.waiting.length) / this.capacity;
  }
}

/** An admission over a budget in this process (the benchmark, tests, a worker without job processes). */
export class LocalAdmission implements StreamAdmission {
  private readonly listeners: ((streamId: string) => void)[] = [];

  constructor(readonly budget: StreamBudget) {}

  admit(streamId: string): Promise<StreamService> {
    return Promise.resolve(this.budget.admit(streamId));
  }

  release(streamId: string): void {
    const promoted = this.budget.release(streamId);
    if (promoted !== null) for (const listener of this.listeners) listener(promoted);
  }

  onPromote(listener: (streamId: string) => void): void {
    this.listeners.push(listener);
  }
}

/** Every stream in full: `translate:file`, and a job run without a worker around it. */
export const unlimitedAdmission: StreamAdmission = {
  admit: () => Promise.resolve('full'),
  release: () => undefined,
  onPromote: () => undefined,
};
