import type { RoomGlossaries } from '@app/contracts';
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
import { randomBytes } from 'node:crypto';
import { unlimitedAdmission, type StreamAdmission, type StreamService } from '../capacity/stream-budget';
import type { PipelineObserver } from '../metrics/agent-metrics';
import { CaptionPublisher } from './captions';
import type { LatencyTracker } from './latency-tracker';
import { LanguageOutput } from './language-output';
import { GlossaryHolder } from './room-glossaries';
import type { RealtimeSessionOptions } from './realtime/translation-session';
import type { ChunkPolicy } from './stable-chunks';
import { StatusPublisher, type StreamStatus } from './translator-status';
import { SpeakerDispatch } from './speaker-dispatch';
import type { SpeakerStream, FinalSegment, TranscriptSegment, TranslationOutputs, TranslationSegment } from './speaker-stream';
import type { SpeechProviders } from './speech-providers';

export { TRANSCRIPTION_TOPIC } from './captions';

/** The published tracks' rate: what the pipeline's synthesis is resampled to. */
export const OUTPUT_SAMPLE_RATE = 24_000;

/** A subscribed track's audio as frames at the given rate; `stop` ends it. */
export interface TrackAudio {
  frames: AsyncIterable<AudioFrame>;
  stop(): void;
}

function trackAudio(track: RemoteTrack, sampleRate: number): TrackAudio {
  const stream = new AudioStream(track, { sampleRate, numChannels: 1 });
  return { frames: stream, stop: () => void stream.cancel().catch(() => undefined) };
}

export interface RoomTranslatorOptions {
  room: Room;
  /** How a subscribed track is heard: rtc-node's `AudioStream` (tests feed recorded speech). */
  listenTo?: (track: RemoteTrack, sampleRate: number) => TrackAudio;
  mode: TranslationMode;
  languages: readonly [string, string];
  providers: SpeechProviders;
  latency: LatencyTracker;
  onError: (error: unknown) => void;
  /** Which speakers get translated speech: the worker's stream capacity (default: every one). */
  admission?: StreamAdmission;
  observer?: PipelineObserver;
  /** Where each final segment goes, for the room's transcript (the translator-events queue). */
  reporter?: SegmentReporter;
  /** Simultaneous mode's chunk policy for every speaker; null or absent: sentence mode. */
  simultaneous?: ChunkPolicy | null;
  /**
   * Each speaker through a hosted speech-to-speech session instead of `providers`' stages. Once a
   * speaker's session is given up (no key, refused, dropped or stalled too often), `providers`' composed
   * pipeline serves them instead when `fallback` is true; otherwise they go untranslated. Either way the
   * translator's status attribute for that speaker says why.
   */
  realtime?: (RealtimeSessionOptions & { fallback?: boolean }) | null;
  /**
   * The local pipeline beside hosted stages (`createLocalFallback`): it serves a direction that neither the
   * realtime session nor `providers` cover, when it covers it.
   */
  local?: SpeechProviders | null;
  /** The room's glossaries at the start (the dispatch's); newer ones come through `setGlossaries`. */
  glossaries?: RoomGlossaries;
}

/** The room's transcript: `TranslatorEventsReporter` in a job. */
export interface SegmentReporter {
  segment(segment: FinalSegment): Promise<void>;
}

/** How long `close()` waits for reports still being sent (Redis away): captions and speech never wait for them. */
const REPORTS_CLOSE_WAIT_MS = 5000;

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
 * The translator inside one room: one published `translation-<code>` track per room language (one
 * queue each, shared by all speakers), one speaker pipeline per subscribed human audio track, and
 * captions sent on the speakers' behalf.
 */
export class RoomTranslator implements TranslationOutputs {
  private readonly outputs = new Map<string, LanguageOutput>();
  private readonly sources: AudioSource[] = [];
  private readonly pipelines = new Map<string, { pipeline: SpeakerStream; audio: TrackAudio; done: Promise<void> }>();
  /** Tracks waiting for the worker's answer on their service; `true` once unsubscribed meanwhile. */
  private readonly admitting = new Map<string, boolean>();
  private readonly admission: StreamAdmission;
  private readonly captions: CaptionPublisher;
  private readonly statuses: StatusPublisher;
  /** Segment ids must not repeat after a reconnect of the agent: each session has its own. */
  private readonly session = randomBytes(3).toString('hex');
  private draining = false;
  /** Segment reports handed to the reporter and not yet acknowledged. */
  private readonly reporting = new Set<Promise<void>>();
  private readonly glossaries: GlossaryHolder;
  /** Which configured pipeline serves each speaker. */
  private readonly dispatch: SpeakerDispatch;

  constructor(private readonly options: RoomTranslatorOptions) {
    this.glossaries = new GlossaryHolder(options.glossaries);
    this.dispatch = new SpeakerDispatch(options);
    for (const c of this.dispatch.choices)
      if (c.passedOver.length > 0) options.observer?.directionFallback?.(c.passedOver[0]!.pipeline, c.pipeline ?? 'none');
    for (const language of options.languages) this.outputs.set(language, new LanguageOutput());
    this.captions = new CaptionPublisher(() => options.room.localParticipant);
    this.statuses = new StatusPublisher(() => options.room.localParticipant);
    this.admission = options.admission ?? unlimitedAdmission;
    this.admission.onPromote((streamId) => {
      for (const [trackSid, entry] of this.pipelines) if (this.streamId(trackSid) === streamId) entry.pipeline.setService('full');
    });
  }

  /** A speaker stream's id at the worker: unique across the rooms of every job process. */
  private streamId(trackSid: string): string {
    return `${this.session}/${trackSid}`;
  }

  /** Each speaker track's service: `full` (captions and speech) or `captions` (beyond the worker's capacity). */
  services(): Map<string, StreamService> {
    return new Map([...this.pipelines].map(([trackSid, entry]) => [trackSid, entry.pipeline.currentService]));
  }

  /**
   * The room's glossaries changed: every speaker's pipeline applies them from its next utterance
   * (a hosted recognizer's vocabulary as its provider allows). An older or equal version is ignored.
   */
  setGlossaries(next: RoomGlossaries): void {
    this.glossaries.set(next);
  }

  /** Subscribe before connecting, so tracks published before the agent joined are not missed. */
  listen(): void {
    const { room } = this.options;
    room.on(RoomEvent.TrackSubscribed, (track: RemoteTrack, publication: RemoteTrackPublication, participant: RemoteParticipant) =>
      this.onTrack(track, publication, participant),
    );
    room.on(
      RoomEvent.TrackUnsubscribed,
      (_track: RemoteTrack, publication: RemoteTrackPublication) => void this.stop(publication.sid ?? ''),
    );
  }

  async publish(): Promise<void> {
    const participant = this.options.room.localParticipant;
    if (!participant) throw new Error('publish() before the room is connected');
    for (const [language, output] of this.outputs) {
      const source = new AudioSource(OUTPUT_SAMPLE_RATE, 1);
      const track = LocalAudioTrack.createAudioTrack(translationTrackName(language), source);
      await participant.publishTrack(track, new TrackPublishOptions({ source: TrackSource.SOURCE_MICROPHONE }));
      this.sources.push(source);
      output.setSink(source);
    }
    await this.statuses.flush();
  }

  private onTrack(track: RemoteTrack, publication: RemoteTrackPublication, participant: RemoteParticipant): void {
    if (this.draining || track.kind !== TrackKind.KIND_AUDIO || participant.kind === ParticipantKind.AGENT) return;
    const trackSid = publication.sid ?? track.sid ?? participant.identity;
    if (this.pipelines.has(trackSid) || this.admitting.has(trackSid)) return;
    this.admitting.set(trackSid, false);
    // The answer comes within a millisecond (a local socket); the track's audio is read from then on.
    void this.admission
      .admit(this.streamId(trackSid))
      .catch((error: unknown): StreamService => {
        this.options.onError(error);
        return 'full';
      })
      .then((service) => {
        const gone = this.admitting.get(trackSid);
        this.admitting.delete(trackSid);
        if (gone || this.draining) this.admission.release(this.streamId(trackSid));
        else this.start(track, participant, trackSid, service);
      });
  }

  private start(track: RemoteTrack, participant: RemoteParticipant, trackSid: string, service: StreamService): void {
    const common = {
      mode: this.options.mode,
      roomLanguages: this.options.languages,
      speaker: { identity: participant.identity, languages: declaredLanguages(participant.metadata), trackSid },
      segmentPrefix: `${trackSid}-${this.session}`,
      outputs: this,
      latency: this.options.latency,
      onError: this.options.onError,
      service,
      observer: this.options.observer,
      glossaries: this.glossaries,
    };
    const { stream: pipeline, status } = this.dispatch.stream(common, (s) => this.status(s));
    if (status) this.status(status);
    const audio = (this.options.listenTo ?? trackAudio)(track, OUTPUT_SAMPLE_RATE);
    const done = pipeline.run().catch(this.options.onError);
    this.pipelines.set(trackSid, { pipeline, audio, done });
    void (async () => {
      for await (const frame of audio.frames) pipeline.pushFrame(frame);
      pipeline.close();
    })().catch(this.options.onError);
  }

  private stop(trackSid: string): Promise<void> {
    if (this.admitting.has(trackSid)) this.admitting.set(trackSid, true);
    const entry = this.pipelines.get(trackSid);
    if (!entry) return Promise.resolve();
    this.pipelines.delete(trackSid);
    entry.pipeline.close();
    entry.audio.stop();
    // Its place goes to the next speaker once what it heard is spoken.
    return entry.done.finally(() => this.admission.release(this.streamId(trackSid)));
  }

  transcript(s: TranscriptSegment): Promise<void> {
    return this.captions.transcript(s);
  }

  /** A speaker's status on the translator's attributes; a failure to set it is logged, never in the way. */
  private status(s: StreamStatus): void {
    this.statuses
      .publish(s)
      .catch((error: unknown) => this.options.onError(new Error(`status of ${s.speakerIdentity} not published: ${String(error)}`)));
  }

  translation(s: TranslationSegment): Promise<void> {
    return this.captions.translation(s);
  }

  /**
   * Hands the segment to the reporter without waiting for it: reports leave in the order they are
   * handed over (one connection), and a report that fails is logged, never in the way of captions or speech.
   */
  segment(s: FinalSegment): Promise<void> {
    const reporter = this.options.reporter;
    if (!reporter) return Promise.resolve();
    const sent: Promise<void> = reporter
      .segment(s)
      .catch((error: unknown) =>
        this.options.onError(new Error(`transcript segment ${s.segmentId} not reported: ${String((error as Error)?.message ?? error)}`)),
      )
      .finally(() => this.reporting.delete(sent));
    this.reporting.add(sent);
    return Promise.resolve();
  }

  play(target: string, frames: AsyncIterable<AudioFrame>): Promise<void> {
    const output = this.outputs.get(target);
    if (!output) throw new Error(`no output track for ${target}`);
    return output.play(frames);
  }

  /** Stops listening; what was already heard is still translated and spoken before this resolves. */
  async drain(): Promise<void> {
    this.draining = true;
    await Promise.all([...this.pipelines.keys()].map((key) => this.stop(key)));
  }

  /** Resolves once every speaker's audio so far has ended and what it said is spoken (tests, drains). */
  async settled(): Promise<void> {
    await Promise.all([...this.pipelines.values()].map((entry) => entry.done));
    await Promise.all(this.reporting);
  }

  async close(): Promise<void> {
    await this.drain();
    for (const output of this.outputs.values()) output.close();
    await Promise.all(this.sources.map((source) => source.close().catch(() => undefined)));
    if (this.reporting.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(this.reporting), new Promise<void>((resolve) => (timer = setTimeout(resolve, REPORTS_CLOSE_WAIT_MS)))]);
    clearTimeout(timer);
  }
}
