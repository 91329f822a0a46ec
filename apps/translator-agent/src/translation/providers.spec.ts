import { initializeLogger, tts } from '@livekit/agents';
import * as deepgram from '@livekit/agents-plugin-deepgram';
import * as elevenlabs from '@livekit/agents-plugin-elevenlabs';
import * as openai from '@livekit/agents-plugin-openai';
import { loadAgentConfig, type SpeechPipelineConfig } from '../config';
import { ApertiumTranslator } from '../local/apertium-translator';
import { PocketSphinxSTT } from '../local/pocketsphinx-stt';
import { createSpeechProviders } from './providers';
import { LlmTranslator } from './translator';

initializeLogger({ pretty: false, level: 'error' });

function pipeline(env: NodeJS.ProcessEnv): SpeechPipelineConfig {
  const loaded = loadAgentConfig(env);
  if (!loaded.ok) throw new Error(loaded.problem);
  return loaded.config.pipeline;
}

describe('createSpeechProviders: each provider is constructed from its settings, without any network', () => {
  it('OpenAI for every stage: realtime STT, a chat model translating, sentence-level TTS', async () => {
    const providers = createSpeechProviders(
      pipeline({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: 'http://127.0.0.1:9' }),
      24_000,
      () => undefined,
    );
    expect(providers.stt(['de'])).toBeInstanceOf(openai.STT);
    expect(providers.translator).toBeInstanceOf(LlmTranslator);
    expect(providers.tts('de')).toBeInstanceOf(tts.StreamAdapter);
    expect(providers.supports('de', 'ja')).toBe(true);
    await providers.close?.();
  });

  it('Deepgram STT (one language, or per-word detection for a mono device) and ElevenLabs streaming TTS', async () => {
    const providers = createSpeechProviders(
      pipeline({
        OPENAI_API_KEY: 'sk',
        DEEPGRAM_API_KEY: 'dg',
        ELEVEN_API_KEY: 'el',
        TRANSLATOR_STT: 'deepgram',
        TRANSLATOR_TTS: 'elevenlabs',
      }),
      24_000,
      () => undefined,
    );
    const dual = providers.stt(['de']);
    expect(dual).toBeInstanceOf(deepgram.STT);
    expect(dual.capabilities).toMatchObject({ streaming: true, interimResults: true });
    expect(providers.stt(['de', 'en'])).toBeInstanceOf(deepgram.STT);
    const speech = providers.tts('de');
    expect(speech).toBeInstanceOf(elevenlabs.TTS);
    expect(speech.capabilities.streaming).toBe(true);
    expect(providers.tts('de')).toBe(speech); // one engine per language, shared by the room's speakers
    await providers.close?.();
  });

  it('the local pipeline: PocketSphinx, Apertium and eSpeak NG, serving English into the installed pairs only', async () => {
    const providers = createSpeechProviders(pipeline({ TRANSLATOR_PIPELINE: 'local' }), 24_000, () => undefined);
    expect(providers.stt(['en'])).toBeInstanceOf(PocketSphinxSTT);
    expect(providers.translator).toBeInstanceOf(ApertiumTranslator);
    expect(providers.tts('es').sampleRate).toBe(24_000);
    expect(providers.supports('en', 'es')).toBe(true);
    expect(providers.supports('es', 'en')).toBe(false); // the recognizer hears English only
    expect(providers.supports('en', 'ja')).toBe(false);
    await providers.close?.();
  });
});
