import { translationTrackName, type TranslationMode } from '@app/domain/translation-routing';
import {
  AudioSource,
  AudioStream,
  LocalAudioTrack,
  ParticipantKind,
  RoomEvent,
  TrackKind,
  TrackPublishOptions,
  TrackSource,
  type AudioFrame,
  type RemoteParticipant,
  type RemoteTrack,
  type RemoteTrackPublication,
  type Room,
} from '@livekit/rtc-node';
import type { LatencyTracker } from './latency-tracker';
import {
  SpeakerPipeline,
  type SpeechProviders,
  type TranscriptSegment,
  type TranslationOutputs,
  type TranslationSegment,
} from './speaker-pipeline';

/** LiveKit's text-stream topic for captions. */
export const TRANSCRIPTION_TOPIC = 'lk.transcription';
const SAMPLE_RATE = 24_000;

export interface RoomTranslatorOptions {
  room: Room;
  mode: TranslationMode;
  languages: readonly [string, string];
  providers: SpeechProviders;
  latency: LatencyTracker;
  onError: (error: unknown) => void;
}

/** The languages a participant declared in their join token's metadata (`{"languages": [...]}`). */
export function declaredLanguages(metadata: string | undefined): string[] {
  try {
    const parsed = JSON.parse(metadata ?? '') as { languages?: unknown };
    return Array.isArray(parsed.languages) ? parsed.languages.filter((l): l is string => typeof l === 'string') : [];
  } catch {
    return [];
  }
}

/**
 * The translator inside one room: one published `translation-<code>` track per room language, and
 * one speaker pipeline per subscribed human audio track.
 */
export class RoomTranslator implements TranslationOutputs {
  private readonly sources = new Map<string, AudioSource>();
  private readonly pipelines = new Map<string, { pipeline: SpeakerPipeline; stream: AudioStream }>();
  private trackSids = new Map<string, string>();

  constructor(private readonly options: RoomTranslatorOptions) {}

  /** Subscribe before connecting, so tracks published before the agent joined are not missed. */
  listen(): void {
    const { room } = this.options;
    room.on(RoomEvent.TrackSubscribed, (track: RemoteTrack, publication: RemoteTrackPublication, participant: RemoteParticipant) =>
      this.onTrack(track, publication, participant),
    );
    room.on(RoomEvent.TrackUnsubscribed, (_track: RemoteTrack, publication: RemoteTrackPublication) => this.stop(publication.sid ?? ''));
  }

  async publish(): Promise<void> {
    const participant = this.options.room.localParticipant;
    if (!participant) throw new Error('publish() before the room is connected');
    for (const language of this.options.languages) {
      const source = new AudioSource(SAMPLE_RATE, 1);
      const track = LocalAudioTrack.createAudioTrack(translationTrackName(language), source);
      const publication = await participant.publishTrack(track, new TrackPublishOptions({ source: TrackSource.SOURCE_MICROPHONE }));
      this.sources.set(language, source);
      if (publication.sid) this.trackSids.set(language, publication.sid);
    }
  }

  private onTrack(track: RemoteTrack, publication: RemoteTrackPublication, participant: RemoteParticipant): void {
    if (track.kind !== TrackKind.KIND_AUDIO || participant.kind === ParticipantKind.AGENT) return;
    const key = publication.sid ?? `${participant.identity}:${track.sid ?? ''}`;
    if (this.pipelines.has(key)) return;
    const pipeline = new SpeakerPipeline({
      providers: this.options.providers,
      mode: this.options.mode,
      roomLanguages: this.options.languages,
      speaker: { identity: participant.identity, languages: declaredLanguages(participant.metadata) },
      outputs: this,
      latency: this.options.latency,
      onError: this.options.onError,
    });
    const stream = new AudioStream(track, { sampleRate: SAMPLE_RATE, numChannels: 1 });
    this.pipelines.set(key, { pipeline, stream });
    pipeline.run().catch(this.options.onError);
    void (async () => {
      for await (const frame of stream) pipeline.pushFrame(frame);
      pipeline.close();
    })().catch(this.options.onError);
  }

  private stop(key: string): void {
    const entry = this.pipelines.get(key);
    if (!entry) return;
    this.pipelines.delete(key);
    entry.pipeline.close();
    void entry.stream.cancel().catch(() => undefined);
  }

  async transcript(s: TranscriptSegment): Promise<void> {
    await this.options.room.localParticipant?.sendText(s.text, {
      topic: TRANSCRIPTION_TOPIC,
      attributes: {
        'lk.segment_id': s.segmentId,
        'lk.transcription_final': String(s.final),
        'translation.kind': 'transcript',
        'translation.speaker': s.speakerIdentity,
        ...(s.language ? { 'translation.language': s.language } : {}),
      },
    });
  }

  async translation(s: TranslationSegment): Promise<void> {
    const trackSid = this.trackSids.get(s.target);
    await this.options.room.localParticipant?.sendText(s.text, {
      topic: TRANSCRIPTION_TOPIC,
      attributes: {
        'lk.segment_id': `${s.segmentId}-${s.target}`,
        'lk.transcription_final': 'true',
        ...(trackSid ? { 'lk.transcribed_track_id': trackSid } : {}),
        'translation.kind': 'translation',
        'translation.speaker': s.speakerIdentity,
        'translation.language': s.target,
        ...(s.source ? { 'translation.source_language': s.source } : {}),
      },
    });
  }

  async captureAudio(target: string, frame: AudioFrame): Promise<void> {
    await this.sources.get(target)?.captureFrame(frame);
  }

  async close(): Promise<void> {
    for (const key of [...this.pipelines.keys()]) this.stop(key);
    await Promise.all([...this.sources.values()].map((source) => source.close().catch(() => undefined)));
  }
}
