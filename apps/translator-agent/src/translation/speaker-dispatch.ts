import type { DirectionChoice } from './direction-plan';
import { fallbackMessage, planDirections, configuredPipelines } from './direction-plan';
import { MonoRealtimeStream } from './realtime/mono-realtime-stream';
import { RealtimeSpeakerPipeline } from './realtime/realtime-speaker-pipeline';
import type { RealtimeSessionOptions } from './realtime/translation-session';
import { SpeakerPipeline } from './speaker-pipeline';
import { UntranslatedStream, type SpeakerStream, type SpeakerStreamOptions } from './speaker-stream';
import type { SpeechProviders } from './speech-providers';
import type { ChunkPolicy } from './stable-chunks';
import type { StreamStatus } from './translator-status';

/** A room's configured pipelines: the realtime session, the composed stages, the local pipeline beside them. */
export interface RoomPipelines {
  languages: readonly [string, string];
  providers: SpeechProviders;
  realtime?: (RealtimeSessionOptions & { fallback?: boolean }) | null;
  local?: SpeechProviders | null;
  simultaneous?: ChunkPolicy | null;
}

/**
 * Runs each speaker on the pipeline that serves their direction (`planDirections`): the realtime session
 * when it speaks the target, else the composed stages when they cover it, else the local pipeline, else
 * nothing. A speaker served by another pipeline than the preferred one, or by none, is told so on their status.
 */
export class SpeakerDispatch {
  /** Per direction of the pair, the configured pipeline that serves it. */
  readonly choices: DirectionChoice[];

  constructor(private readonly room: RoomPipelines) {
    this.choices = planDirections(room.languages, configuredPipelines(room));
  }

  /** The direction a speaker's stream translates: from their declared room language. */
  choiceFor(declared: readonly string[]): DirectionChoice {
    const [a, b] = this.room.languages;
    const source = declared.find((l) => l === a || l === b) ?? a;
    return this.choices.find((c) => c.source === source)!;
  }

  /**
   * A mono device's track carries both directions: the realtime sessions when they serve both, else the
   * pipeline that serves the direction realtime cannot (it detects the language of each utterance, so it
   * serves both): the direction it passed over decides, and its status says why.
   */
  monoChoice(): DirectionChoice | 'realtime-both' {
    if (this.choices.every((c) => c.pipeline === 'realtime')) return 'realtime-both';
    return this.choices.find((c) => c.pipeline !== 'realtime') ?? this.choices[0]!;
  }

  /** The speaker's stream, and the status to show for it (null: nothing out of the ordinary). */
  stream(common: SpeakerStreamOptions, onStatus: (status: StreamStatus) => void): { stream: SpeakerStream; status: StreamStatus | null } {
    const { providers, realtime, local } = this.room;
    const composed = (stages: SpeechProviders, segmentPrefix = common.segmentPrefix) =>
      new SpeakerPipeline({ ...common, segmentPrefix, providers: stages, simultaneous: this.room.simultaneous ?? null });
    const realtimeOptions = {
      ...common,
      session: realtime!,
      // Its own segment ids: the realtime session's segments may already have used the first numbers.
      fallback: realtime?.fallback ? () => composed(providers, `${common.segmentPrefix}-fb`) : null,
      onStatus,
    };
    const mono = common.mode === 'mono' ? this.monoChoice() : null;
    if (mono === 'realtime-both') return { stream: new MonoRealtimeStream(realtimeOptions), status: null };
    const choice = mono ?? this.choiceFor(common.speaker.languages);
    let stream: SpeakerStream;
    switch (choice.pipeline) {
      case 'realtime':
        stream = new RealtimeSpeakerPipeline(realtimeOptions);
        break;
      case 'local':
        stream = composed(local!);
        break;
      case 'stages':
        stream = composed(providers);
        break;
      case null:
        // Without stages configured nothing can caption it; with them, what they can do (captions) is done, as before.
        stream = realtime && !realtime.fallback ? new UntranslatedStream(common.service) : composed(providers);
        break;
    }
    const told = choice.passedOver.length > 0 && (choice.pipeline !== null || stream instanceof UntranslatedStream);
    const status: StreamStatus | null = told
      ? {
          speakerIdentity: common.speaker.identity,
          trackSid: common.speaker.trackSid,
          state: choice.pipeline === null ? 'unavailable' : 'fallback',
          reason: 'unsupported_language',
          message: fallbackMessage(choice),
        }
      : null;
    return { stream, status };
  }
}
