import { initializeLogger } from '@livekit/agents';
import { dispose } from '@livekit/rtc-node';
import { setTimeout as sleep } from 'node:timers/promises';
import { FakeRoom, recordAudio, trackFrames as speech } from '../../../test/support/fake-room';
import { goForward, librivoxClips, localProviders } from '../../../test/support/local-speech';
import { RealtimeTranslationStandIn, type Refusal } from '../../../test/support/realtime-translation-standin';
import { AgentMetrics } from '../../metrics/agent-metrics';
import type { PcmAudio } from '../../tools/wav';
import { ATTR, CAPTION_ATTR } from '../captions';
import { LatencyTracker } from '../latency-tracker';
import { OUTPUT_SAMPLE_RATE, RoomTranslator, type TrackAudio } from '../room-translator';
import type { FinalSegment } from '../speaker-stream';
import type { SpeechProviders } from '../speech-providers';
import { STATUS_ATTR_PREFIX } from '../translator-status';

initializeLogger({ pretty: false, level: 'error' });

const SCRIPT = [{ input: 'he was not an ill disposed young man', output: 'no era un joven mal dispuesto' }];

/** Rejects when `promise` is not settled within `ms`: nothing in these tests may wait forever. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Polls `done` every 10 ms, at most `ms`. */
async function until(done: () => boolean, ms: number): Promise<void> {
  for (let waited = 0; waited < ms && !done(); waited += 10) await sleep(10);
}

describe('RoomTranslator with the realtime translation pipeline against its protocol stand-in (real AudioSource tracks)', () => {
  let standIn: RealtimeTranslationStandIn | null = null;
  let providers: SpeechProviders | null = null;
  afterEach(async () => {
    await standIn?.stop();
    standIn = null;
  });
  afterAll(async () => {
    await standIn?.stop();
    await providers?.close?.();
    await dispose();
  });

  /**
   * A room whose speakers talk once the translator is in it. Each track's audio is held until the
   * stand-in has configured as many sessions as `waitForSessions` (a realtime session hears nothing before).
   */
  async function runRoom(options: {
    speakers: { identity: string; languages: string[]; trackSid: string; audio: PcmAudio }[];
    apiKey?: string;
    refuse?: Refusal;
    fallback?: boolean;
    waitForSessions: number;
    /** After its speech, each track waits for `before` (bounded by the test), then says `audio` too. */
    then?: { audio: PcmAudio; before: (room: FakeRoom, standIn: RealtimeTranslationStandIn) => Promise<void> };
  }) {
    standIn = new RealtimeTranslationStandIn(SCRIPT);
    const baseUrl = await standIn.start();
    if (options.refuse) standIn.refuse(options.refuse);
    const stand = standIn;
    const room = new FakeRoom();
    const audio = recordAudio();
    const metrics = new AgentMetrics();
    const segments: FinalSegment[] = [];
    const errors: string[] = [];
    const listenTo = (track: { sid?: string }): TrackAudio => {
      const heard = room.listenTo(track);
      return {
        frames: (async function* () {
          await until(() => stand.updates.length >= options.waitForSessions, 5000);
          yield* heard.frames;
          if (!options.then) return;
          await within(options.then.before(room, stand), 10_000, 'before the second clip');
          yield* speech(options.then.audio);
        })(),
        stop: heard.stop,
      };
    };
    const translator = new RoomTranslator({
      room: room.asRoom(),
      listenTo,
      mode: 'dual',
      languages: ['en', 'es'],
      providers: providers ?? ({} as SpeechProviders),
      latency: new LatencyTracker(),
      onError: (e) => errors.push(String((e as Error)?.message ?? e)),
      observer: metrics,
      reporter: { segment: async (s) => void segments.push(s) },
      realtime: {
        baseUrl,
        apiKey: options.apiKey ?? 'sk-standin',
        inputTranscriptionModel: 'gpt-realtime-whisper',
        openTimeoutMs: 2000,
        fallback: options.fallback ?? false,
      },
    });
    try {
      translator.listen();
      await within(translator.publish(), 5000, 'publish');
      for (const s of options.speakers) room.speak(room.join(s.identity, s.languages), s.trackSid, speech(s.audio));
      await sleep(50); // the worker's admission answers
      await within(translator.settled(), 30_000, 'settled');
    } finally {
      await within(translator.close(), 10_000, 'close').finally(() => audio.restore());
    }
    return { room, audio, metrics, segments, errors, standIn: stand };
  }

  /** Two clips the stand-in hears as one line each (no quiet 200 ms inside). */
  const clip = (index: 1 | 4) => librivoxClips()[index]!.audio;
  const texts = (room: FakeRoom, kind: string, speaker: string) =>
    room.texts.filter((t) => t.attributes[CAPTION_ATTR.kind] === kind && t.senderIdentity === speaker);

  it('two speakers: audio in → translated speech on the other language’s track, both captions on their behalf, transcript segments, metrics', async () => {
    const {
      room,
      audio,
      metrics,
      segments,
      errors,
      standIn: stand,
    } = await runRoom({
      speakers: [
        { identity: 'ana', languages: ['en'], trackSid: 'TR_ana', audio: clip(1) },
        { identity: 'beto', languages: ['es'], trackSid: 'TR_beto', audio: clip(4) },
      ],
      waitForSessions: 2,
    });

    expect(errors).toEqual([]);
    // One session per speaker, each speaking the room's other language.
    expect(stand.updates.map((u) => (u as { audio: { output: { language: string } } }).audio.output.language).sort()).toEqual(['en', 'es']);
    // Translated speech on both tracks, at the tracks' rate.
    expect(room.publishedTracks).toEqual(['translation-en', 'translation-es']);
    expect(audio.seconds.get('es')).toBeGreaterThan(0.5);
    expect(audio.seconds.get('en')).toBeGreaterThan(0.5);
    expect([...audio.rates]).toEqual([OUTPUT_SAMPLE_RATE]);
    // The room's transcript: one segment per speaker, with its translation (the stand-in's script, from its first word).
    expect(segments.map((s) => [s.speakerIdentity, s.language, s.translation?.language]).sort()).toEqual([
      ['ana', 'en', 'es'],
      ['beto', 'es', 'en'],
    ]);
    for (const s of segments) {
      expect(s.text).toMatch(/^he was not an/);
      expect(s.translation?.text).toMatch(/^no era un joven/);
    }
    // Captions on each speaker's behalf: what they said (interim, then the final: the segment's text), and its translation.
    for (const [speaker, target] of [
      ['ana', 'es'],
      ['beto', 'en'],
    ] as const) {
      const segment = segments.find((s) => s.speakerIdentity === speaker)!;
      const said = texts(room, 'transcript', speaker);
      expect(said.some((t) => t.attributes[ATTR.final] === 'false')).toBe(true);
      const final = said.filter((t) => t.attributes[ATTR.final] === 'true');
      expect(final.map((t) => [t.text, t.attributes[ATTR.trackId], t.attributes[ATTR.segmentId]])).toEqual([
        [segment.text, `TR_${speaker}`, segment.segmentId],
      ]);
      expect(texts(room, 'translation', speaker).at(-1)).toMatchObject({
        text: segment.translation!.text,
        attributes: { [CAPTION_ATTR.language]: target, [ATTR.segmentId]: `${segment.segmentId}-${target}` },
      });
    }
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/^translator_first_audio_seconds_count\{from="en",to="es"\} 1$/m);
    expect(text).toMatch(/^translator_word_lag_seconds_count\{from="es",to="en"\} 1$/m);
    expect(text).not.toMatch(/^translator_realtime_failures_total\{/m);
    expect(Object.keys(room.attributes)).toEqual([]);
  }, 60_000);

  it('a dropped connection in a room: the status shows it reconnecting and back, speech after it is translated and spoken again', async () => {
    const statusOf = (room: FakeRoom) =>
      (JSON.parse(room.attributes[`${STATUS_ATTR_PREFIX}ana`] ?? '{}') as { state?: string; reason?: string }).state;
    const seen: (string | undefined)[] = [];
    const {
      room,
      audio,
      metrics,
      segments,
      standIn: stand,
    } = await runRoom({
      speakers: [{ identity: 'ana', languages: ['en'], trackSid: 'TR_ana', audio: clip(1) }],
      waitForSessions: 1,
      then: {
        audio: clip(4),
        before: async (r, s) => {
          await until(() => texts(r, 'translation', 'ana').length > 0, 5000);
          s.drop();
          await until(() => statusOf(r) === 'reconnecting', 5000);
          seen.push(statusOf(r));
          await until(() => statusOf(r) === 'translating', 5000);
          seen.push(statusOf(r));
        },
      },
    });

    expect(stand.connections).toBe(2);
    expect(seen).toEqual(['reconnecting', 'translating']);
    expect(JSON.parse(room.attributes[`${STATUS_ATTR_PREFIX}ana`]!)).toMatchObject({ state: 'translating', reason: null });
    // One segment per session, both translated; speech on the Spanish track from both.
    expect(segments.map((s) => s.translation?.text.startsWith('no era un joven'))).toEqual([true, true]);
    expect(audio.seconds.get('es')).toBeGreaterThan(1);
    expect(await metrics.registry.metrics()).toMatch(/^translator_realtime_failures_total\{reason="dropped",outcome="retried"\} 1$/m);
  }, 60_000);

  it('a refused session without a fallback: the translator’s status says why, the metrics count it, nothing is played', async () => {
    const { room, audio, metrics, errors } = await runRoom({
      speakers: [{ identity: 'ana', languages: ['en'], trackSid: 'TR_ana', audio: goForward() }],
      refuse: { http: 403 },
      waitForSessions: 0,
    });

    expect(JSON.parse(room.attributes[`${STATUS_ATTR_PREFIX}ana`] ?? 'null')).toEqual({
      state: 'unavailable',
      reason: 'refused',
      message: expect.stringMatching(
        /realtime translation session of ana refused: the translation endpoint answered HTTP 403; not translated/,
      ),
      track: 'TR_ana',
    });
    expect(errors).toEqual([expect.stringMatching(/HTTP 403; not translated/)]);
    expect(await metrics.registry.metrics()).toMatch(/^translator_realtime_failures_total\{reason="refused",outcome="unavailable"\} 1$/m);
    expect(audio.seconds.size).toBe(0);
    expect(room.texts).toEqual([]);
  }, 60_000);

  it('a missing key with the local stages as fallback: the room keeps its captions and speech, and the status says why', async () => {
    providers = localProviders();
    try {
      const { room, audio, metrics, segments } = await runRoom({
        speakers: [{ identity: 'ana', languages: ['en'], trackSid: 'TR_ana', audio: goForward() }],
        apiKey: '',
        fallback: true,
        waitForSessions: 0,
      });

      expect(JSON.parse(room.attributes[`${STATUS_ATTR_PREFIX}ana`] ?? 'null')).toMatchObject({ state: 'fallback', reason: 'missing_key' });
      expect(await metrics.registry.metrics()).toMatch(
        /^translator_realtime_failures_total\{reason="missing_key",outcome="fallback"\} 1$/m,
      );
      expect(texts(room, 'translation', 'ana').at(-1)?.text.toLowerCase()).toContain('diez metros');
      expect(audio.seconds.get('es')).toBeGreaterThan(0.5);
      expect(segments.map((s) => s.text.toLowerCase())).toEqual([expect.stringContaining('go forward')]);
    } finally {
      await providers.close?.();
      providers = null;
    }
  }, 60_000);
});
