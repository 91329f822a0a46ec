import { initializeLogger, type stt } from '@livekit/agents';
import { dispose, type AudioFrame } from '@livekit/rtc-node';
import { final, endOfSpeech, ScriptedSTT } from '../../test/support/fakes';
import { OpenAIStandIn } from '../../test/support/openai-standin';
import { loadAgentConfig } from '../config';
import { LatencyTracker } from './latency-tracker';
import { createSpeechProviders } from './providers';
import { SpeakerPipeline } from './speaker-pipeline';
import type { TranslationSegment } from './speaker-stream';

initializeLogger({ pretty: false, level: 'fatal' });

describe('the real OpenAI plugins (chat translation, speech) against a local stand-in of the API', () => {
  const api = new OpenAIStandIn({ 'Guten Morgen.': 'Good morning.' });
  let baseUrl: string;
  beforeAll(async () => {
    baseUrl = await api.start();
  });
  afterAll(async () => {
    await api.stop();
    await dispose();
  });

  async function speak(failures: number) {
    api.failNext = failures;
    api.requests.length = 0;
    const loaded = loadAgentConfig({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: baseUrl });
    if (!loaded.ok) throw new Error(loaded.problem);
    const providerErrors: unknown[] = [];
    const hosted = createSpeechProviders(loaded.config.pipeline, 24_000, (_stage, error) => providerErrors.push(error));
    let recognition: ScriptedSTT | null = null;
    const translations: TranslationSegment[] = [];
    const frames: AudioFrame[] = [];
    const pipeline = new SpeakerPipeline({
      // Recognition stays scripted (OpenAI's realtime transcription is a WebSocket protocol); the rest is the real plugins.
      providers: { ...hosted, stt: (languages): stt.STT => (recognition = new ScriptedSTT(languages)) },
      mode: 'dual',
      roomLanguages: ['de', 'en'],
      speaker: { identity: 'ada', languages: ['de'], trackSid: 'TR_ada' },
      segmentPrefix: 'ada',
      outputs: {
        transcript: async () => undefined,
        translation: async (s) => void translations.push(s),
        play: async (_target, audio) => {
          for await (const frame of audio) frames.push(frame);
        },
      },
      latency: new LatencyTracker(),
      onError: (error) => providerErrors.push(error),
    });
    const running = pipeline.run();
    recognition!.streams[0]!.say([endOfSpeech, final('Guten Morgen.')]);
    const deadline = Date.now() + 20_000;
    while (
      translations.length === 0 &&
      Date.now() < deadline &&
      api.requests.filter((r) => r.path.endsWith('/chat/completions')).length <= failures
    ) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    pipeline.close();
    await running;
    await hosted.close?.();
    return { translations, frames, providerErrors };
  }

  it('translates with the chat model and speaks with OpenAI TTS at 24 kHz', async () => {
    const { translations, frames, providerErrors } = await speak(0);
    expect(translations.map((t) => t.text)).toEqual(['Good morning.']);
    const chat = api.requests.find((r) => r.path.endsWith('/chat/completions'));
    expect(chat?.body).toMatchObject({ model: 'gpt-4.1-mini', stream: true });
    expect(api.requests.find((r) => r.path.endsWith('/audio/speech'))?.body).toMatchObject({
      input: 'Good morning.',
      model: 'gpt-4o-mini-tts',
    });
    const seconds = frames.reduce((sum, f) => sum + f.samplesPerChannel / f.sampleRate, 0);
    // 13 characters → 130 ms of tone; the plugin frames it in 100 ms frames (its last partial frame may be cut).
    expect(seconds).toBeGreaterThanOrEqual(0.1);
    expect(seconds).toBeLessThanOrEqual(0.131);
    expect(frames.every((f) => f.sampleRate === 24_000)).toBe(true);
    expect(providerErrors).toEqual([]);
  }, 30_000);

  it('a 503 from the API is logged and retried, and the translation still arrives', async () => {
    const { translations, providerErrors } = await speak(1);
    expect(translations.map((t) => t.text)).toEqual(['Good morning.']);
    expect(api.requests.filter((r) => r.path.endsWith('/chat/completions')).length).toBeGreaterThanOrEqual(2);
    expect(providerErrors.length).toBeGreaterThan(0);
  }, 30_000);
});
