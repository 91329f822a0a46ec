/**
 * A room as the translator sees it, without a LiveKit server: the events rtc-node's `Room` emits,
 * its participants, and a local participant that records published tracks and text streams.
 * Audio stays real: tracks are rtc-node `LocalAudioTrack`s over real `AudioSource`s.
 */
import {
  AudioFrame,
  AudioSource,
  LocalAudioTrack,
  ParticipantKind,
  RoomEvent,
  TrackKind,
  type LocalParticipant,
  type LocalTrack,
  type RemoteParticipant,
  type Room,
} from '@livekit/rtc-node';
import { EventEmitter } from 'node:events';
import { setImmediate } from 'node:timers/promises';
import { deliveredFrames } from '../../src/tools/file-translation';
import type { PcmAudio } from '../../src/tools/wav';
import { LatencyTracker } from '../../src/translation/latency-tracker';
import { OUTPUT_SAMPLE_RATE, type RoomTranslatorOptions, type TrackAudio } from '../../src/translation/room-translator';
import type { SpeechProviders } from '../../src/translation/speech-providers';

export interface SentText {
  text: string;
  topic: string | undefined;
  senderIdentity: string | undefined;
  attributes: Record<string, string>;
}

export class FakeRoom extends EventEmitter {
  readonly remoteParticipants = new Map<string, RemoteParticipant>();
  readonly publishedTracks: string[] = [];
  readonly texts: SentText[] = [];
  /** The translator participant's attributes, as `setAttributes` left them. */
  readonly attributes: Record<string, string> = {};
  private readonly audio = new Map<string, AudioFrame[]>();

  readonly localParticipant = {
    publishTrack: async (track: LocalTrack) => {
      this.publishedTracks.push(track.name ?? '');
      return { sid: `TR_agent_${track.name}` };
    },
    setAttributes: async (attributes: Record<string, string>) => void Object.assign(this.attributes, attributes),
    streamText: async (options?: { topic?: string; attributes?: Record<string, string>; senderIdentity?: string }) => {
      const parts: string[] = [];
      return {
        write: async (text: string) => void parts.push(text),
        close: async () =>
          void this.texts.push({
            text: parts.join(''),
            topic: options?.topic,
            senderIdentity: options?.senderIdentity,
            attributes: options?.attributes ?? {},
          }),
      };
    },
  } as unknown as LocalParticipant;

  asRoom(): Room {
    return this as unknown as Room;
  }

  join(identity: string, languages: string[]): RemoteParticipant {
    const participant = {
      identity,
      kind: ParticipantKind.STANDARD,
      metadata: JSON.stringify({ languages }),
    } as unknown as RemoteParticipant;
    this.remoteParticipants.set(identity, participant);
    this.emit(RoomEvent.ParticipantConnected, participant);
    return participant;
  }

  leave(identity: string): void {
    const participant = this.remoteParticipants.get(identity);
    this.remoteParticipants.delete(identity);
    this.emit(RoomEvent.ParticipantDisconnected, participant);
  }

  /** The participant publishes a microphone track that will carry `frames`, and the agent subscribes. */
  speak(participant: RemoteParticipant, trackSid: string, frames: AudioFrame[]): void {
    this.audio.set(trackSid, frames);
    this.emit(RoomEvent.TrackSubscribed, { kind: TrackKind.KIND_AUDIO, sid: trackSid }, { sid: trackSid }, participant);
  }

  /** `RoomTranslatorOptions.listenTo`: the recorded frames, as fast as the pipeline takes them. */
  readonly listenTo = (track: { sid?: string }): TrackAudio => {
    const frames = this.audio.get(track.sid ?? '') ?? [];
    let stopped = false;
    return {
      frames: (async function* () {
        for (const [i, frame] of frames.entries()) {
          if (stopped) return;
          if (i % 50 === 0) await setImmediate();
          yield frame;
        }
      })(),
      stop: () => void (stopped = true),
    };
  };
}

/** Which published language each real AudioSource is, and the seconds of speech captured onto it. */
export function recordAudio() {
  const languageOf = new Map<AudioSource, string>();
  const seconds = new Map<string, number>();
  const rates = new Set<number>();
  const realCreate = LocalAudioTrack.createAudioTrack.bind(LocalAudioTrack);
  const create = jest.spyOn(LocalAudioTrack, 'createAudioTrack').mockImplementation((name: string, source: AudioSource) => {
    languageOf.set(source, name.replace('translation-', ''));
    return realCreate(name, source);
  });
  const capture = AudioSource.prototype.captureFrame;
  const spy = jest.spyOn(AudioSource.prototype, 'captureFrame').mockImplementation(function (this: AudioSource, frame: AudioFrame) {
    const language = languageOf.get(this) ?? '?';
    seconds.set(language, (seconds.get(language) ?? 0) + frame.samplesPerChannel / frame.sampleRate);
    rates.add(frame.sampleRate);
    return capture.call(this, frame);
  });
  return {
    seconds,
    rates,
    restore: () => {
      spy.mockRestore();
      create.mockRestore();
    },
  };
}

/** What a speaker's track delivers: half a second of silence, the speech at the tracks' rate in 10 ms frames, 1.5 s of silence. */
export function trackFrames(audio: PcmAudio): AudioFrame[] {
  const silence = (ms: number) =>
    Array.from(
      { length: ms / 10 },
      () => new AudioFrame(new Int16Array(OUTPUT_SAMPLE_RATE / 100), OUTPUT_SAMPLE_RATE, 1, OUTPUT_SAMPLE_RATE / 100),
    );
  return [...silence(500), ...deliveredFrames(audio, OUTPUT_SAMPLE_RATE), ...silence(1500)];
}

/**
 * What a test room's translator starts from: this room, both languages' speech (`dual`, English and
 * Spanish) through `providers`, a latency tracker of its own. The caller adds how tracks are heard,
 * what happens to errors, and the rest.
 */
export function englishSpanishIn(
  room: FakeRoom,
  providers: SpeechProviders,
): Pick<RoomTranslatorOptions, 'room' | 'mode' | 'languages' | 'providers' | 'latency'> {
  return { room: room.asRoom(), mode: 'dual', languages: ['en', 'es'], providers, latency: new LatencyTracker() };
}
