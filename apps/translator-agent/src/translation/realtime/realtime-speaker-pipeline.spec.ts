import { initializeLogger } from '@livekit/agents';
import { AudioFrame, dispose } from '@livekit/rtc-node';
import { setTimeout as sleep } from 'node:timers/promises';
import { librivoxClips } from '../../../test/support/local-speech';
import { RealtimeTranslationStandIn } from '../../../test/support/realtime-translation-standin';
import type { PipelineObserver } from '../../metrics/agent-metrics';
import { deliveredFrames } from '../../tools/file-translation';
import { LatencyTracker } from '../latency-tracker';
import type { FinalSegment, TranscriptSegment, TranslationSegment } from '../speaker-stream';
import { RealtimeSpeakerPipeline } from './realtime-speaker-pipeline';

initializeLogger({ pretty: false, level: 'error' });

const RATE = 24_000;
const SCRIPT = [
  { input: 'he was not an ill disposed young man', output: 'no era un joven mal dispuesto' },
  { input: 'he might even have been made amiable himself', output: 'incluso podría haberse vuelto amable' },
];

/** A room's view of one speaker's pipeline: what was played on the track and captioned. */
function harness(baseUrl: string, apiKey = 'sk-standin') {
  const played: AudioFrame[] = [];
  const transcripts: TranscriptSegment[] = [];
  const translations: TranslationSegment[] = [];
  const segments: FinalSegment[] = [];
  const errors: string[] = [];
  const counted = { restarts: 0, errors: [] as string[], firstAudio: 0 };
  const latency = new LatencyTracker();
  const observer: PipelineObserver = {
    firstAudio: () => void (counted.firstAudio += 1),
    stage: () => undefined,
    utterance: () => undefined,
    recognitionRestart: () => void (counted.restarts += 1),
    providerError: (stage, recoverable) => void counted.errors.push(`${stage}:${recoverable}`),
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
  });
  return { pipeline, played, transcripts, translations, segments, errors, counted, latency };
}

const speech = (i: number) => deliveredFrames(librivoxClips()[i]!.audio, RATE);
const silence = (ms: number) => Array.from({ length: ms / 10 }, () => new AudioFrame(new Int16Array(RATE / 100), RATE, 1, RATE / 100));

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
    await sleep(900); // the deltas pause: the first segment ends
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
    expect(h.errors).toEqual([]);
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
    expect(h.errors).toEqual([expect.stringMatching(/realtime translation session of alice dropped; reopening/)]);
    expect(h.counted).toMatchObject({ restarts: 1, errors: ['realtime:true'] });
    expect(h.played.length).toBeGreaterThan(before);
    // The new session starts its own script again: both segments are the stand-in's first line.
    expect(h.segments.map((s) => [s.segmentId, s.text])).toEqual([
      ['rt-1', SCRIPT[0]!.input],
      ['rt-2', SCRIPT[0]!.input],
    ]);
  }, 30_000);

  it('a refused session (a wrong key) says why, is counted, and is retried until the track ends', async () => {
    const h = harness(baseUrl, 'sk-wrong');
    const running = h.pipeline.run();
    for (let i = 0; i < 200 && h.errors.length < 2; i += 1) await sleep(10);
    h.pipeline.close();
    await running;
    expect(h.errors[0]).toMatch(/realtime translation session refused: the translation endpoint answered HTTP 401/);
    expect(h.counted.errors.length).toBeGreaterThanOrEqual(2);
    expect(h.counted.errors.every((e) => e === 'realtime:false')).toBe(true);
    expect(h.played).toEqual([]);
  }, 30_000);
});
