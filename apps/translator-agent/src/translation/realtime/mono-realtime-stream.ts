import type { AudioFrame } from '@livekit/rtc-node';
import type { StreamService } from '../../capacity/stream-budget';
import type { SpeakerStream } from '../speaker-stream';
import { RealtimeSpeakerPipeline, type RealtimeSpeakerPipelineOptions } from './realtime-speaker-pipeline';

/**
 * A mono device (one track, both of the room's languages) through realtime translation: a session per
 * direction, each hearing the whole track. OpenAI's model stays quiet on speech already in its output
 * language, so each session translates only the other language's speech, and shows a segment only once
 * it translates it (`outputGated`): its captions carry the language actually spoken. What one session
 * translates, the other drops from what it heard untranslated, so neither segment holds the other's words.
 *
 * When one session is given up and a composed fallback exists, the fallback takes the whole track over
 * (it detects the language per utterance) and the other session is closed, so no speech is translated
 * twice. Without a fallback the other direction goes on alone.
 */
export class MonoRealtimeStream implements SpeakerStream {
  private readonly sessions: RealtimeSpeakerPipeline[];
  private takenOver = false;

  constructor(options: RealtimeSpeakerPipelineOptions) {
    const [a, b] = options.roomLanguages;
    this.sessions = [
      [a, b],
      [b, a],
    ].map(
      ([source, target], index) =>
        new RealtimeSpeakerPipeline({
          ...options,
          segmentPrefix: `${options.segmentPrefix}-${source}`,
          direction: { source: source!, target: target! },
          outputGated: true,
          onTranslated: () => this.sessions[1 - index]?.siblingTranslated(),
          fallback: options.fallback ? () => this.takeOver(index, options.fallback!) : null,
        }),
    );
  }

  get currentService(): StreamService {
    return this.sessions[0]!.currentService;
  }

  setService(service: StreamService): void {
    for (const session of this.sessions) session.setService(service);
  }

  pushFrame(frame: AudioFrame): void {
    for (const session of this.sessions) session.pushFrame(frame);
  }

  async run(): Promise<void> {
    await Promise.all(this.sessions.map((session) => session.run()));
  }

  close(): void {
    for (const session of this.sessions) session.close();
  }

  /** The first session given up hands the track to the fallback and closes the other one. */
  private takeOver(index: number, fallback: () => SpeakerStream | null): SpeakerStream | null {
    if (this.takenOver) return null;
    this.takenOver = true;
    this.sessions.forEach((session, i) => i !== index && session.close());
    return fallback();
  }
}
