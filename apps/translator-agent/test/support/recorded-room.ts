/**
 * The live translator's transcript path over recorded speech, without a LiveKit server: speakers in a
 * `FakeRoom` speak recorded clips, a `RoomTranslator` on the local pipeline (PocketSphinx → Apertium →
 * eSpeak NG) hears them and reports each final segment through a real `TranslatorEventsReporter`, i.e.
 * as `segment` jobs on the translator-events BullMQ queue of `redisUrl` under `queuePrefix`.
 * For the agent's tests and the API's end-to-end tests (recorded clip → queue → API → transcript).
 */
import type { TranscriptSegmentReport } from '@app/contracts';
import { AudioFrame } from '@livekit/rtc-node';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { segmentReport, TranslatorEventsReporter } from '../../src/events/translator-events';
import { deliveredFrames } from '../../src/tools/file-translation';
import type { PcmAudio } from '../../src/tools/wav';
import { LatencyTracker } from '../../src/translation/latency-tracker';
import { OUTPUT_SAMPLE_RATE, RoomTranslator } from '../../src/translation/room-translator';
import type { SpeechProviders } from '../../src/translation/speech-providers';
import { FakeRoom, type SentText } from './fake-room';
import { librivoxClips, localProviders } from './local-speech';

export { goForward } from './local-speech';

/** A LibriVox clip of pocketsphinx-testdata by the end of its id: `0880` is "he was not an ill disposed young man" (3 s). */
export function librivoxClip(suffix: string): PcmAudio {
  const clip = librivoxClips().find((c) => c.id.endsWith(suffix));
  if (!clip) throw new Error(`no LibriVox clip ending in ${suffix}`);
  return clip.audio;
}

/** What a microphone track delivers for these utterances: each with silence before (0.5 s) and after (1.5 s). */
export function spokenFrames(utterances: PcmAudio[]): AudioFrame[] {
  const silence = (ms: number) =>
    Array.from(
      { length: ms / 10 },
      () => new AudioFrame(new Int16Array(OUTPUT_SAMPLE_RATE / 100), OUTPUT_SAMPLE_RATE, 1, OUTPUT_SAMPLE_RATE / 100),
    );
  return utterances.flatMap((audio) => [...silence(500), ...deliveredFrames(audio, OUTPUT_SAMPLE_RATE), ...silence(1500)]);
}

export interface RecordedSpeaker {
  identity: string;
  /** As in the join token's metadata: the first is the one spoken in a dual room. */
  languages: string[];
  /** Said one after the other on the speaker's track. */
  utterances: PcmAudio[];
  trackSid?: string;
}

export interface RecordedRoomOptions {
  /** The room's id (rooms.id) and LiveKit name (rooms.livekit_name) the reports carry. */
  roomId: string;
  livekitRoom: string;
  languages: [string, string];
  mode?: 'mono' | 'dual';
  speakers: RecordedSpeaker[];
  redisUrl?: string;
  /** The BullMQ prefix the API's worker consumes (QUEUE_PREFIX). */
  queuePrefix: string;
  /** The translator session (a LiveKit job id): job ids are `<sessionId>.segment.<segmentId>`. Default: a new one. */
  sessionId?: string;
  /** Default: the local pipeline, opened and closed by this call. */
  providers?: SpeechProviders;
  /**
   * Deliver the audio in real time, as a live track does (default: as fast as the pipeline takes it,
   * so the segments' wall-clock times are compressed and run ahead of the clock by up to the audio's length).
   */
  paced?: boolean;
}

export interface RecordedRoom {
  /** Every segment job added to the queue, in the order it was added. */
  reports: TranscriptSegmentReport[];
  /** The captions the room received (`lk.transcription` text streams). */
  captions: SentText[];
  /** Pipeline and reporting errors (PocketSphinx cannot hear Spanish: those segments are simply untranslated). */
  errors: unknown[];
  sessionId: string;
}

/**
 * Runs the room until every speaker's audio is heard, translated and reported, then closes the
 * translator and the reporter's Redis connection. Callers end their test file with
 * `await dispose()` (`@livekit/rtc-node`), as the agent's tests do.
 */
export async function reportRecordedRoom(options: RecordedRoomOptions): Promise<RecordedRoom> {
  const errors: unknown[] = [];
  const sessionId = options.sessionId ?? `AJ_test_${randomBytes(4).toString('hex')}`;
  const session = { id: sessionId, roomId: options.roomId, livekitRoom: options.livekitRoom };
  const reporter = new TranslatorEventsReporter(options.redisUrl ?? 'redis://127.0.0.1:6379', options.queuePrefix, session);
  const providers = options.providers ?? localProviders((e) => errors.push(e));
  const reports: TranscriptSegmentReport[] = [];
  const room = new FakeRoom();
  const translator = new RoomTranslator({
    room: room.asRoom(),
    mode: options.mode ?? 'dual',
    languages: options.languages,
    providers,
    latency: new LatencyTracker(),
    onError: (e) => errors.push(e),
    listenTo: options.paced ? paced(room) : room.listenTo,
    reporter: {
      segment: (s) => {
        const at = new Date();
        reports.push(segmentReport(session, s, at));
        return reporter.segment(s, at);
      },
    },
  });
  try {
    translator.listen();
    await translator.publish();
    for (const [i, s] of options.speakers.entries()) {
      room.speak(room.join(s.identity, s.languages), s.trackSid ?? `TR_${s.identity}_${i}`, spokenFrames(s.utterances));
    }
    // Each track is listened to once the worker admitted it (a promise away).
    while (translator.services().size < options.speakers.length) await new Promise((resolve) => setTimeout(resolve, 5));
    await translator.settled();
  } finally {
    await translator.close();
    await reporter.close();
    if (!options.providers) await providers.close?.();
  }
  return { reports, captions: room.texts, errors, sessionId };
}

/** The room's recorded tracks delivered in real time, 10 ms a frame. */
function paced(room: FakeRoom): FakeRoom['listenTo'] {
  return (track) => {
    const fast = room.listenTo(track);
    return {
      frames: (async function* () {
        const startedAt = performance.now();
        let i = 0;
        for await (const frame of fast.frames) {
          const wait = startedAt + i * 10 - performance.now();
          if (wait > 1) await sleep(wait);
          i += 1;
          yield frame;
        }
      })(),
      stop: fast.stop,
    };
  };
}

/** Every Redis key under a test's BullMQ prefix (`<prefix>:*`), SCAN then DEL: how many there were (the API tests' own helper). */
export { deleteKeysOf as deleteQueueKeys } from '../../../api/test/support/redis-keys';
