import { initializeLogger, stt, tokenize, tts } from '@livekit/agents';
import { AudioFrame, dispose } from '@livekit/rtc-node';
import { setTimeout as sleep } from 'node:timers/promises';
import { FakeRoom, recordAudio, trackFrames as speech } from '../../../test/support/fake-room';
import { goForward, librivoxClips, localProviders } from '../../../test/support/local-speech';
import { endOfSpeech, final, RecordingLLM, SilenceTTS, startOfSpeech } from '../../../test/support/fakes';
import { RealtimeTranslationStandIn, type Refusal, type ScriptLine } from '../../../test/support/realtime-translation-standin';
import { AgentMetrics } from '../../metrics/agent-metrics';
import type { PcmAudio } from '../../tools/wav';
import { ATTR, CAPTION_ATTR } from '../captions';
import { LatencyTracker } from '../latency-tracker';
import { OUTPUT_SAMPLE_RATE, RoomTranslator, type TrackAudio } from '../room-translator';
import type { FinalSegment } from '../speaker-stream';
import type { SpeechProviders } from '../speech-providers';
import { STATUS_ATTR_PREFIX } from '../translator-status';
import { LlmTranslator } from '../translator';
import { voiced } from './pcm16';

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

/** Recognition that hears one utterance per track: it starts at the first voiced frame and ends, saying `text`, at the next quiet one. */
class UtteranceSTT extends stt.STT {
  label = 'utterance-stt';

  constructor(private readonly text: string) {
    super({ streaming: true, interimResults: false });
  }

  protected async _recognize(): Promise<stt.SpeechEvent> {
    throw new Error('UtteranceSTT only streams');
  }

  stream(): stt.SpeechStream {
    const text = this.text;
    return new (class extends stt.SpeechStream {
      label = 'utterance-stt';
      protected async run(): Promise<void> {
        let state: 'before' | 'speaking' | 'done' = 'before';
        for await (const frame of this.input) {
          if (!(frame instanceof AudioFrame) || state === 'done') continue;
          const loud = voiced(frame.data);
          if (state === 'before' && loud) {
            state = 'speaking';
            this.queue.put(startOfSpeech);
          } else if (state === 'speaking' && !loud) {
            state = 'done';
            this.queue.put(endOfSpeech);
            this.queue.put(final(text));
          }
        }
      }
    })(this);
  }
}

/** Three scripted stages that translate English into Dutch only: recognition hears `said`, the LLM answers `translated`, speech is silence. */
function englishToDutchStages(said: string, translated: string): SpeechProviders {
  const synthesis = new tts.StreamAdapter(new SilenceTTS(), new tokenize.basic.SentenceTokenizer());
  return {
    label: 'stt=scripted translation=scripted tts=silence',
    stt: () => new UtteranceSTT(said),
    translator: new LlmTranslator(new RecordingLLM([{ input: said, content: translated }]), { attempts: 1 }),
    tts: () => synthesis,
    supports: (source, target) => source === 'en' && target === 'nl',
    whyNot: (source, target) => `the scripted stages translate only en>nl, not ${source}>${target}`,
  };
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
    /** The room's pair; default en ↔ es. */
    languages?: [string, string];
    /** Default dual (a device per speaker). */
    mode?: 'mono' | 'dual';
    /** What the stand-in hears, line by line; default the suite's SCRIPT. */
    script?: ScriptLine[];
    /** The composed stages beside the realtime session; default the suite's `providers`. */
    stages?: SpeechProviders;
    apiKey?: string;
    refuse?: Refusal;
    fallback?: boolean;
    waitForSessions: number;
    /** After its speech, each track waits for `before` (bounded by the test), then says `audio` too. */
    then?: { audio: PcmAudio; before: (room: FakeRoom, standIn: RealtimeTranslationStandIn) => Promise<void> };
  }) {
    standIn = new RealtimeTranslationStandIn(options.script ?? SCRIPT);
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
      mode: options.mode ?? 'dual',
      languages: options.languages ?? ['en', 'es'],
      providers: options.stages ?? providers ?? ({} as SpeechProviders),
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

  it('a nl ↔ en room: nl>en goes through the realtime session, which speaks English; en>nl, which it does not speak, falls back to the stages', async () => {
    const said = 'go forward ten meters';
    const dutch = 'ga tien meter vooruit';
    const {
      room,
      audio,
      metrics,
      segments,
      errors,
      standIn: stand,
    } = await runRoom({
      languages: ['nl', 'en'],
      stages: englishToDutchStages(said, dutch),
      fallback: true,
      speakers: [
        { identity: 'ana', languages: ['nl'], trackSid: 'TR_ana', audio: clip(1) },
        { identity: 'beto', languages: ['en'], trackSid: 'TR_beto', audio: goForward() },
      ],
      waitForSessions: 1,
    });

    expect(errors).toEqual([]);
    // Only the direction the session can serve reached it: one session, speaking English; Dutch was never asked of it.
    expect(stand.connections).toBe(1);
    expect(stand.updates.map((u) => (u as { audio: { output: { language: string } } }).audio.output.language)).toEqual(['en']);
    expect(stand.refusedLanguages).toEqual([]);
    // Both directions translated: captions and speech in each target.
    expect(texts(room, 'translation', 'ana').at(-1)?.attributes[CAPTION_ATTR.language]).toBe('en');
    expect(texts(room, 'translation', 'beto').at(-1)).toMatchObject({ text: dutch, attributes: { [CAPTION_ATTR.language]: 'nl' } });
    expect(audio.seconds.get('en')).toBeGreaterThan(0.5);
    expect(audio.seconds.get('nl')).toBeGreaterThan(0);
    expect(segments.map((s) => [s.speakerIdentity, s.language, s.translation?.language]).sort()).toEqual([
      ['ana', 'nl', 'en'],
      ['beto', 'en', 'nl'],
    ]);
    // The fallback is said: on the speaker's status and in the metrics; the speaker the session serves has none.
    expect(JSON.parse(room.attributes[`${STATUS_ATTR_PREFIX}beto`] ?? 'null')).toEqual({
      state: 'fallback',
      reason: 'unsupported_language',
      message: `en>nl: OpenAI's gpt-realtime-translate does not speak "nl"; translated by the stages pipeline instead`,
      track: 'TR_beto',
    });
    expect(room.attributes[`${STATUS_ATTR_PREFIX}ana`]).toBeUndefined();
    expect(await metrics.registry.metrics()).toMatch(
      /^translator_direction_fallbacks_total\{from_pipeline="realtime",to_pipeline="stages"\} 1$/m,
    );
  }, 60_000);

  it('an es ↔ en mono device with realtime: a session per direction, both people translated, captions in the language spoken', async () => {
    // One device, two people: first the English speaker's line, then the Spanish speaker's.
    const script: ScriptLine[] = [
      { input: 'he was not an ill disposed young man', output: 'no era un joven mal dispuesto', language: 'en' },
      { input: 'era un hombre muy bueno', output: 'he was a very good man', language: 'es' },
    ];
    const {
      room,
      audio,
      segments,
      errors,
      standIn: stand,
    } = await runRoom({
      mode: 'mono',
      script,
      speakers: [{ identity: 'duo', languages: ['en', 'es'], trackSid: 'TR_duo', audio: clip(1) }],
      waitForSessions: 2,
      then: { audio: clip(4), before: (r) => until(() => texts(r, 'translation', 'duo').length > 0, 5000) },
    });

    expect(errors).toEqual([]);
    // Two sessions on the one track, one speaking each language.
    expect(stand.updates.map((u) => (u as { audio: { output: { language: string } } }).audio.output.language).sort()).toEqual(['en', 'es']);
    // Each line translated once, by the session whose output language it is not, labelled with the language said.
    expect(segments.map((s) => [s.language, s.text, s.translation?.language, s.translation?.text])).toEqual([
      ['en', script[0]!.input, 'es', script[0]!.output],
      ['es', script[1]!.input, 'en', script[1]!.output],
    ]);
    const finals = texts(room, 'transcript', 'duo').filter((t) => t.attributes[ATTR.final] === 'true');
    expect(finals.map((t) => [t.text, t.attributes[CAPTION_ATTR.language]])).toEqual([
      [script[0]!.input, 'en'],
      [script[1]!.input, 'es'],
    ]);
    // No caption of either line in the wrong language, not even an interim one: each is part of its language's line.
    const lineIn = (language: string | undefined) => script.find((l) => l.language === language);
    for (const t of texts(room, 'transcript', 'duo'))
      expect(lineIn(t.attributes[CAPTION_ATTR.language])?.input.startsWith(t.text)).toBe(true);
    for (const t of texts(room, 'translation', 'duo')) {
      const source = t.attributes[CAPTION_ATTR.sourceLanguage];
      expect(t.attributes[CAPTION_ATTR.language]).toBe(source === 'en' ? 'es' : 'en');
      expect(lineIn(source)?.output.startsWith(t.text)).toBe(true);
    }
    // Both listeners hear speech.
    expect(audio.seconds.get('es')).toBeGreaterThan(0.5);
    expect(audio.seconds.get('en')).toBeGreaterThan(0.5);
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
