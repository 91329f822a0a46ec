import { initializeLogger, tts } from '@livekit/agents';
import * as deepgram from '@livekit/agents-plugin-deepgram';
import * as elevenlabs from '@livekit/agents-plugin-elevenlabs';
import * as openai from '@livekit/agents-plugin-openai';
import { loadAgentConfig, type SpeechPipelineConfig } from '../config';
import { ApertiumTranslator } from '../local/apertium-translator';
import { PocketSphinxSTT } from '../local/pocketsphinx-stt';
import { createLocalFallback, createSpeechProviders, DEEPGRAM_ENDPOINTING_MS, deepgramOptions } from './providers';
import { takesVocabulary } from './speech-providers';
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

  /** Deepgram recognition, OpenAI translation and ElevenLabs speech, with keys (nothing is called). */
  const deepgramAndElevenLabs = () =>
    createSpeechProviders(
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

  it('Deepgram STT (one language, or per-word detection for a mono device) and ElevenLabs streaming TTS', async () => {
    const providers = deepgramAndElevenLabs();
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

  it("the hosted stages serve their providers' published languages, each in the provider's own code, Deepgram ending utterances at 400 ms", async () => {
    const providers = deepgramAndElevenLabs();
    expect(providers.supports('nl', 'en')).toBe(true);
    expect(providers.supports('am', 'en')).toBe(false); // Nova-3 does not recognize Amharic
    expect(providers.supports('en', 'he')).toBe(false); // Flash v2.5 does not speak Hebrew
    expect(providers.supports('he', 'en')).toBe(true); // but Nova-3 recognizes it
    expect(providers.whyNot?.('am', 'he')).toBe(
      'Deepgram nova-3 does not recognize "am": set TRANSLATOR_STT=openai (OPENAI_API_KEY); ' +
        'ElevenLabs eleven_flash_v2_5 does not speak "he": set TRANSLATOR_TTS=openai (OPENAI_API_KEY)',
    );
    expect(deepgramOptions({ apiKey: 'dg', model: 'nova-3' }, ['fil'])).toMatchObject({ language: 'tl', endpointing: 400 });
    expect(deepgramOptions({ apiKey: 'dg', model: 'nova-3' }, ['nb']).language).toBe('no');
    expect(deepgramOptions({ apiKey: 'dg', model: 'nova-3' }, ['en', 'es']).language).toBe('multi');
    expect(DEEPGRAM_ENDPOINTING_MS).toBeGreaterThanOrEqual(300);
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

  it('the local pipeline beside hosted stages: only when its engines were found and some stage is hosted', async () => {
    const mixed = pipeline({ OPENAI_API_KEY: 'sk', TRANSLATOR_STT: 'local' });
    const local = createLocalFallback(mixed, 24_000, () => undefined);
    expect(local?.label).toBe('stt=local translation=local tts=local');
    expect(local?.supports('en', 'es')).toBe(true);
    await local?.close?.();
    expect(createLocalFallback(pipeline({ TRANSLATOR_PIPELINE: 'local' }), 24_000, () => undefined)).toBeNull();
    expect(createLocalFallback(pipeline({ OPENAI_API_KEY: 'sk' }), 24_000, () => undefined)).toBeNull();
  });

  describe("the room's glossary terms steer the hosted recognizers, by priority within each one's documented limit", () => {
    const keyterms = Array.from({ length: 120 }, (_, i) => ({ text: `Term${i}`, priority: 0 }));

    it("Deepgram: at most 100 keyterms, the first ones, through the framework's session keyterms", async () => {
      const providers = createSpeechProviders(
        pipeline({ DEEPGRAM_API_KEY: 'dg', TRANSLATOR_STT: 'deepgram', OPENAI_API_KEY: 'sk' }),
        24_000,
        () => undefined,
      );
      const engine = providers.stt(['en']);
      if (!takesVocabulary(engine)) throw new Error('Deepgram takes no vocabulary');
      const session = jest.spyOn(engine, '_updateSessionKeyterms');
      engine.setVocabulary(keyterms);
      expect(session).toHaveBeenCalledWith(keyterms.slice(0, 100).map((k) => k.text));
      await providers.close?.();
    });

    it('OpenAI (a model without keywords): the terms as the transcription prompt, within 1,024 characters', async () => {
      const providers = createSpeechProviders(
        pipeline({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: 'http://127.0.0.1:9' }),
        24_000,
        () => undefined,
      );
      const engine = providers.stt(['en']);
      if (!takesVocabulary(engine) || !(engine instanceof openai.STT)) throw new Error('OpenAI takes no vocabulary');
      expect(engine.capabilities.keyterms).toBeFalsy();
      const update = jest.spyOn(engine, 'updateOptions');
      engine.setVocabulary(keyterms);
      const prompt = (update.mock.calls[0]![0] as { prompt: string }).prompt;
      expect(prompt.startsWith('Term0, Term1, Term2')).toBe(true);
      expect(prompt.length).toBeLessThanOrEqual(1024);
      expect(prompt.split(', ').length).toBeGreaterThan(100);
      await providers.close?.();
    });

    it('PocketSphinx takes none: what it hears gets the sounds_like replacement instead', async () => {
      const providers = createSpeechProviders(pipeline({ TRANSLATOR_PIPELINE: 'local' }), 24_000, () => undefined);
      expect(takesVocabulary(providers.stt(['en']))).toBe(false);
      await providers.close?.();
    });
  });
});
