import { initializeLogger } from '@livekit/agents';
import { AudioFrame, dispose } from '@livekit/rtc-node';
import { setTimeout as sleep } from 'node:timers/promises';
import { librivoxClips } from '../../../test/support/local-speech';
import { RealtimeTranslationStandIn } from '../../../test/support/realtime-translation-standin';
import type { PipelineObserver } from '../../metrics/agent-metrics';
import { deliveredFrames } from '../../tools/file-translation';
import { compileGlossary } from '@app/domain/glossaries';
import { LatencyTracker } from '../latency-tracker';
import { GlossaryHolder } from '../room-glossaries';
import type { FinalSegment, SpeakerStream, TranscriptSegment, TranslationSegment } from '../speaker-stream';
import type { StreamStatus } from '../translator-status';
import { RealtimeSpeakerPipeline, SEGMENT_IDLE_MS, type RealtimeSpeakerPipelineOptions } from './realtime-speaker-pipeline';

initializeLogger({ pretty: false, level: 'error' });

const RATE = 24_000;
const SCRIPT = [
  { input: 'he was not an ill disposed young man', output: 'no era un joven mal dispuesto' },
  { input: 'he might even have been made amiable himself', output: 'incluso podría haberse vuelto amable' },
];

/** A composed pipeline standing by: the audio it is given once the realtime session is given up. */
function standby() {
  const heard: AudioFrame[] = [];
  let ran = false;
  let closed = false;
  const stream: SpeakerStream = {
    pushFrame: (frame) => void heard.push(frame),
    run: async () => {
      ran = true;
      for (let i = 0; i < 500 && !closed; i += 1) await sleep(10);
    },
    close: () => void (closed = true),
    setService: () => undefined,
    currentService: 'full',
  };
  return { stream, heard, ran: () => ran };
}

/** A room's view of one speaker's pipeline: what was played on the track and captioned. */
function harness(baseUrl: string, apiKey = 'sk-standin', extra: Partial<RealtimeSpeakerPipelineOptions> = {}) {
  const played: AudioFrame[] = [];
  const transcripts: TranscriptSegment[] = [];
  const translations: TranslationSegment[] = [];
  const segments: FinalSegment[] = [];
  const errors: string[] = [];
  const statuses: StreamStatus[] = [];
  const counted = { restarts: 0, errors: [] as string[], firstAudio: 0, failures: [] as string[], onsets: 0, unapplied: [] as string[] };
  const latency = new LatencyTracker();
  const observer: PipelineObserver = {
    firstAudio: () => void (counted.firstAudio += 1),
    stage: () => undefined,
    utterance: () => undefined,
    recognitionRestart: () => void (counted.restarts += 1),
    providerError: (stage, recoverable) => void counted.errors.push(`${stage}:${recoverable}`),
    realtimeFailure: (reason, outcome) => void counted.failures.push(`${reason}:${outcome}`),
    spokenChunk: () => void (counted.onsets += 1),
    glossaryUnapplied: (pipeline) => void counted.unapplied.push(pipeline),
  };
  const pipeline = new RealtimeSpeakerPipeline({
    session: { baseUrl, apiKey, inputTranscriptionModel: 'gpt-realtime-whisper', openTimeoutMs: 2000 },
    mode: 'dual',
    roomLanguages: ['en', 'es'],
    speaker: { identity: 'alice', languages: ['en'], trackSid: 'TR_a' },
    segmentPrefix: 'rt',
    outputs: {
      transcript: async (s) => void transcripts.push(s),
      translation: async (s) => void translations.push(s),
      segment: async (s) => void segments.push(s),
      play: async (_target, frames) => {
        for await (const frame of frames) played.push(frame);
      },
    },
    latency,
    onError: (e) => errors.push(String((e as Error).message)),
    restartDelayMs: 50,
    observer,
    idleMs: 600,
    onStatus: (s) => void statuses.push(s),
    ...extra,
  });
  return { pipeline, played, transcripts, translations, segments, errors, counted, latency, statuses };
}

const speech = (i: number) => deliveredFrames(librivoxClips()[i]!.audio, RATE);
const silence = (ms: number) => Array.from({ length: ms / 10 }, () => new AudioFrame(new Int16Array(RATE / 100), RATE, 1, RATE / 100));

/** The two clips said are two segments, each with its whole line and its whole translation, and nothing went wrong. */
function expectBothLinesTranslated(h: ReturnType<typeof harness>): void {
  expect(h.errors).toEqual([]);
  expect(h.segments.map((s) => [s.segmentId, s.text, s.translation?.text])).toEqual([
    ['rt-1', SCRIPT[0]!.input, SCRIPT[0]!.output],
    ['rt-2', SCRIPT[1]!.input, SCRIPT[1]!.output],
  ]);
}

/** Pushes the frames as a live track would: 200 ms of them every 200 ms. */
async function paced(pipeline: SpeakerStream, frames: AudioFrame[]): Promise<void> {
  for (let at = 0; at < frames.length; at += 20) {
    for (const frame of frames.slice(at, at + 20)) pipeline.pushFrame(frame);
    await sleep(200);
  }
}

describe('the hosted speech-to-speech provider (OpenAI realtime translation) against its protocol stand-in', () => {
  let standIn: RealtimeTranslationStandIn;
  let baseUrl: string;
  beforeEach(async () => {
    standIn = new RealtimeTranslationStandIn(SCRIPT);
    baseUrl = await standIn.start();
  });
  afterEach(async () => {
    await standIn.stop();
  });
  afterAll(async () => {
    await dispose();
  });

  /** Waits until the session is open (the pipeline drops audio before). */
  const opened = async () => {
    for (let i = 0; i < 200 && standIn.received.at(-1)?.includes('session.update') !== true; i += 1) await sleep(10);
    await sleep(100); // session.updated on its way back
  };

  it('audio in → translated speech on the track, both captions, one transcript segment per pause, billed seconds', async () => {
    const h = harness(baseUrl);
    const running = h.pipeline.run();
    await opened();
    for (const frame of [...speech(1), ...silence(1000)]) h.pipeline.pushFrame(frame);
    await sleep(SEGMENT_IDLE_MS + 400); // the deltas pause longer than a segment's idle time: the first segment ends
    for (const frame of [...speech(4), ...silence(1000)]) h.pipeline.pushFrame(frame);
    h.pipeline.close();
    await running;

    expect(standIn.updates).toEqual([
      { audio: { input: { transcription: { model: 'gpt-realtime-whisper' } }, output: { language: 'es' } } },
    ]);
    expect(standIn.received[0]!.filter((t) => t !== 'session.input_audio_buffer.append')).toEqual(['session.update', 'session.close']);
    expect(h.played.length).toBeGreaterThan(50);
    expect(h.played.every((f) => f.sampleRate === RATE)).toBe(true);
    expect(h.segments.map((s) => [s.segmentId, s.text, s.translation?.text])).toEqual([
      ['rt-1', SCRIPT[0]!.input, SCRIPT[0]!.output],
      ['rt-2', SCRIPT[1]!.input, SCRIPT[1]!.output],
    ]);
    // Captions grow while the speaker talks: interim original text, then the final; the translation alongside.
    const first = h.transcripts.filter((t) => t.segmentId === 'rt-1');
    expect(first.filter((t) => !t.final).length).toBeGreaterThan(3);
    expect(first.at(-1)).toMatchObject({ final: true, text: SCRIPT[0]!.input, language: 'en' });
    expect(h.translations.filter((t) => t.segmentId === 'rt-1').at(-1)).toMatchObject({
      text: SCRIPT[0]!.output,
      source: 'en',
      target: 'es',
    });
    // The translator reports (and the API bills) seconds of translated speech, and latency per direction.
    const [report] = h.latency.drain();
    expect(report).toMatchObject({ direction: 'en>es', samples: 2 });
    expect(report!.audioSeconds).toBeCloseTo(h.played.reduce((n, f) => n + f.samplesPerChannel, 0) / RATE, 2);
    expect(h.counted.firstAudio).toBe(2);
    // Word lag without word times: one measure per segment, from its speech onset to its first translated frame.
    expect(h.counted.onsets).toBe(2);
    expect(h.errors).toEqual([]);
    expect(h.statuses).toEqual([]);
  }, 30_000);

  it('takes no glossary: each segment of a direction the room has one for is counted as translated without it', async () => {
    const entries = [{ terms: { en: 'young man', es: 'muchacho' }, doNotTranslate: false, caseSensitive: false, soundsLike: {} }];
    const glossaries = new GlossaryHolder({
      version: 1,
      directions: [compileGlossary([entries], 'en', 'es'), compileGlossary([entries], 'es', 'en')],
    });
    const h = harness(baseUrl, 'sk-standin', { glossaries });
    const running = h.pipeline.run();
    await opened();
    for (const frame of [...speech(1), ...silence(1000)]) h.pipeline.pushFrame(frame);
    h.pipeline.close();
    await running;
    expect(h.segments.map((s) => s.translation?.text)).toEqual([SCRIPT[0]!.output]);
    expect(h.counted.unapplied).toEqual(['realtime']);
  }, 30_000);

  it('a dropped connection is reported, counted and resumed: speech after it is translated again', async () => {
    const h = harness(baseUrl);
    const running = h.pipeline.run();
    await opened();
    for (const frame of [...speech(1), ...silence(1000)]) h.pipeline.pushFrame(frame);
    await sleep(300);
    standIn.drop();
    for (let i = 0; i < 200 && standIn.connections < 2; i += 1) await sleep(10);
    await opened();
    const before = h.played.length;
    for (const frame of [...speech(4), ...silence(1000)]) h.pipeline.pushFrame(frame);
    h.pipeline.close();
    await running;

    expect(standIn.connections).toBe(2);
    expect(h.errors).toEqual([
      expect.stringMatching(
        /realtime translation session of alice dropped: the connection was lost; reopening in 50 ms \(attempt 1 of 3\)/,
      ),
    ]);
    expect(h.counted).toMatchObject({ restarts: 1, errors: ['realtime:true'], failures: ['dropped:retried'] });
    // The translator's status shows the gap and the recovery.
    expect(h.statuses.map((st) => [st.speakerIdentity, st.state, st.reason])).toEqual([
      ['alice', 'reconnecting', 'dropped'],
      ['alice', 'translating', null],
    ]);
    expect(h.played.length).toBeGreaterThan(before);
    // The new session starts its own script again: both segments are the stand-in's first line.
    expect(h.segments.map((s) => [s.segmentId, s.text])).toEqual([
      ['rt-1', SCRIPT[0]!.input],
      ['rt-2', SCRIPT[0]!.input],
    ]);
  }, 30_000);

  it('a dropped connection that cannot be reopened is reported after a bounded number of attempts: status, log and count say why', async () => {
    const h = harness(baseUrl);
    const running = h.pipeline.run();
    await opened();
    for (const frame of speech(1)) h.pipeline.pushFrame(frame);
    for (let i = 0; i < 300 && h.played.length === 0; i += 1) await sleep(10);
    standIn.refuse({ http: 503 });
    standIn.drop();
    for (let i = 0; i < 500 && h.statuses.at(-1)?.state !== 'unavailable'; i += 1) await sleep(10);
    const heard = h.played.length;
    for (const frame of speech(4)) h.pipeline.pushFrame(frame);
    h.pipeline.close();
    await running;

    expect(h.statuses.at(-1)).toMatchObject({ speakerIdentity: 'alice', trackSid: 'TR_a', state: 'unavailable', reason: 'dropped' });
    expect(h.statuses.at(-1)!.message).toMatch(/HTTP 503 \(4 failed attempts in a row\); not translated/);
    expect(h.counted.failures).toEqual(['dropped:retried', 'refused:retried', 'refused:retried', 'dropped:unavailable']);
    expect(h.errors.at(-1)).toMatch(/realtime translation session of alice refused: .*HTTP 503/);
    // What was said before the drop was translated and its segment kept; nothing after.
    expect(heard).toBeGreaterThan(0);
    expect(h.played.length).toBe(heard);
    expect(h.segments.map((s) => s.text)).toEqual([SCRIPT[0]!.input]);
  }, 30_000);

  it('a service that streams silent audio between translations: segments still end at each pause', async () => {
    standIn.streamSilence();
    const h = harness(baseUrl);
    const running = h.pipeline.run();
    await opened();
    await paced(h.pipeline, [...speech(1), ...silence(2000)]);
    await paced(h.pipeline, [...speech(4), ...silence(1000)]);
    h.pipeline.close();
    await running;

    expectBothLinesTranslated(h);
    expect(h.statuses).toEqual([]);
  }, 30_000);

  it('output that lags the input by seconds: each segment keeps its translation, and closing waits for the lagging tail', async () => {
    // Longer than the 5 s a close used to wait, and than a segment's idle time by far.
    standIn.lag(6000);
    const h = harness(baseUrl, 'sk-standin', { outputWaitMs: 8000 });
    const running = h.pipeline.run();
    await opened();
    await paced(h.pipeline, [...speech(1), ...silence(1000)]);
    // The other person hears the translation out, then answers (a reply over a lagging translation merges into its segment).
    for (let i = 0; i < 1500 && h.segments.length === 0; i += 1) await sleep(10);
    await paced(h.pipeline, [...speech(4), ...silence(400)]);
    h.pipeline.close();
    await running;

    expectBothLinesTranslated(h);
    expect(h.translations.at(-1)).toMatchObject({ segmentId: 'rt-2', text: SCRIPT[1]!.output });
    expect(standIn.received[0]!.at(-1)).toBe('session.close');
    expect(h.statuses).toEqual([]);
  }, 40_000);

  it('a provider that stops answering (no event, not even a pong) is cut after the stall time and reopened; translation goes on', async () => {
    const h = harness(baseUrl, 'sk-standin', {
      session: { baseUrl, apiKey: 'sk-standin', inputTranscriptionModel: null, openTimeoutMs: 2000, stallMs: 400 },
    });
    const running = h.pipeline.run();
    await opened();
    standIn.stall();
    // Silence is sent as the reference asks ("keep appending silence"): the pings go unanswered all the same.
    for (const frame of silence(1000)) h.pipeline.pushFrame(frame);
    for (let i = 0; i < 300 && h.statuses.length === 0; i += 1) await sleep(10);
    standIn.stall(false);
    for (let i = 0; i < 500 && h.statuses.at(-1)?.state !== 'translating'; i += 1) await sleep(10);
    for (const frame of [...speech(4), ...silence(1000)]) h.pipeline.pushFrame(frame);
    h.pipeline.close();
    await running;

    expect(h.statuses[0]).toMatchObject({ state: 'reconnecting', reason: 'stalled' });
    expect(h.statuses[0]!.message).toMatch(/stalled: no answer \(no event, no pong\) for 400 ms/);
    expect(h.statuses.at(-1)).toMatchObject({ state: 'translating' });
    expect(h.counted.failures[0]).toBe('stalled:retried');
    expect(standIn.connections).toBe(2);
    expect(h.played.length).toBeGreaterThan(0);
    expect(h.translations.at(-1)).toMatchObject({ text: SCRIPT[0]!.output });
  }, 30_000);

  it('a model that stays quiet on speech (already in its output language) is not taken for a stalled provider', async () => {
    await standIn.stop();
    standIn = new RealtimeTranslationStandIn([{ ...SCRIPT[0]!, language: 'es' }]);
    baseUrl = await standIn.start();
    const h = harness(baseUrl, 'sk-standin', {
      // No source transcript either: not one event comes back for the speech.
      session: { baseUrl, apiKey: 'sk-standin', inputTranscriptionModel: null, openTimeoutMs: 2000, stallMs: 400 },
    });
    const running = h.pipeline.run();
    await opened();
    // Speech for many times the stall time, and not one event back: the connection still answers pings.
    for (let round = 0; round < 3; round += 1) for (const frame of speech(1)) h.pipeline.pushFrame(frame);
    await sleep(1200);
    h.pipeline.close();
    await running;

    expect(h.statuses).toEqual([]);
    expect(h.counted.failures).toEqual([]);
    expect(standIn.connections).toBe(1);
    expect(h.played).toEqual([]);
  }, 30_000);

  /** Runs the pipeline until its first status (the session given up), then speaks a clip into it and ends it: the frames said. */
  const speakAfterStatus = async (h: ReturnType<typeof harness>) => {
    const running = h.pipeline.run();
    for (let i = 0; i < 300 && h.statuses.length === 0; i += 1) await sleep(10);
    const frames = speech(1);
    for (const frame of frames) h.pipeline.pushFrame(frame);
    h.pipeline.close();
    await running;
    return frames;
  };

  it('a refused session (a wrong key: HTTP 401) is not retried: the composed pipeline takes the speaker over, the status says why', async () => {
    const fallback = standby();
    const h = harness(baseUrl, 'sk-wrong', { fallback: () => fallback.stream });
    const frames = await speakAfterStatus(h);

    expect(standIn.connections).toBe(0);
    expect(h.statuses).toEqual([
      expect.objectContaining({
        state: 'fallback',
        reason: 'refused',
        message: expect.stringMatching(/answered HTTP 401; the composed pipeline translates instead/),
      }),
    ]);
    expect(h.counted.failures).toEqual(['refused:fallback']);
    expect(h.counted.errors).toEqual(['realtime:false']);
    expect(fallback.ran()).toBe(true);
    expect(fallback.heard).toEqual(frames);
    expect(h.played).toEqual([]);
  }, 30_000);

  it('a session the service refuses with an error event (insufficient quota) is reported as such; without a fallback the speaker is untranslated', async () => {
    standIn.refuse({ error: { type: 'insufficient_quota', code: 'insufficient_quota', message: 'You exceeded your current quota.' } });
    const h = harness(baseUrl);
    await speakAfterStatus(h);

    expect(standIn.connections).toBe(1);
    expect(h.statuses).toEqual([
      expect.objectContaining({
        state: 'unavailable',
        reason: 'refused',
        message: expect.stringMatching(/insufficient_quota: You exceeded your current quota\.; not translated/),
      }),
    ]);
    expect(h.counted.failures).toEqual(['refused:unavailable']);
    expect(h.played).toEqual([]);
    expect(h.transcripts).toEqual([]);
  }, 30_000);

  it('a transient server error while opening is retried with backoff: the speaker is translated once the session opens', async () => {
    standIn.refuse({
      error: { type: 'server_error', code: null, message: 'The server had an error while processing your request.' },
      times: 1,
    });
    const h = harness(baseUrl);
    const running = h.pipeline.run();
    for (let i = 0; i < 300 && h.statuses.at(-1)?.state !== 'translating'; i += 1) await sleep(10);
    await opened();
    for (const frame of [...speech(1), ...silence(1000)]) h.pipeline.pushFrame(frame);
    h.pipeline.close();
    await running;

    expect(standIn.connections).toBe(2);
    expect(h.statuses.map((s) => [s.state, s.reason])).toEqual([
      ['reconnecting', 'refused'],
      ['translating', null],
    ]);
    expect(h.statuses[0]!.message).toMatch(/server_error: The server had an error/);
    expect(h.errors[0]).toMatch(/reopening in 50 ms \(attempt 1 of 3\)$/);
    expect(h.counted.failures).toEqual(['refused:retried']);
    expect(h.translations.at(-1)).toMatchObject({ text: SCRIPT[0]!.output });
    expect(h.played.length).toBeGreaterThan(0);
  }, 30_000);

  it('an output language the model does not speak is refused at session.update, as the service does, and not retried', async () => {
    const h = harness(baseUrl, 'sk-standin', { roomLanguages: ['en', 'nl'] });
    await speakAfterStatus(h);

    expect(standIn.connections).toBe(1);
    expect(standIn.refusedLanguages).toEqual(['nl']);
    expect(standIn.updates).toEqual([]);
    expect(h.statuses).toEqual([
      expect.objectContaining({
        state: 'unavailable',
        reason: 'refused',
        message: expect.stringMatching(/invalid_value: Invalid value: 'nl'/),
      }),
    ]);
    expect(h.counted.failures).toEqual(['refused:unavailable']);
    expect(h.played).toEqual([]);
  }, 30_000);

  it('a missing key never reaches the network: the fallback serves the speaker from the start', async () => {
    const fallback = standby();
    const h = harness(baseUrl, '', { fallback: () => fallback.stream });
    const frames = await speakAfterStatus(h);

    expect(standIn.connections).toBe(0);
    expect(h.statuses).toEqual([expect.objectContaining({ state: 'fallback', reason: 'missing_key' })]);
    expect(h.counted.failures).toEqual(['missing_key:fallback']);
    expect(fallback.heard).toEqual(frames);
  }, 30_000);
});
