import { languageTable, providerCode, servesLanguage } from '@app/domain/provider-languages';
import { tokenize, tts, type stt } from '@livekit/agents';
import * as deepgram from '@livekit/agents-plugin-deepgram';
import * as elevenlabs from '@livekit/agents-plugin-elevenlabs';
import * as openai from '@livekit/agents-plugin-openai';
import type { SpeechPipelineConfig } from '../config';
import { ApertiumTranslator } from '../local/apertium-translator';
import { EspeakTTS } from '../local/espeak-tts';
import { PocketSphinxSTT } from '../local/pocketsphinx-stt';
import { DEEPGRAM_KEYTERM_LIMIT, fillKeyterms, OPENAI_TRANSCRIPTION_LIMIT } from './recognition-vocabulary';
import type { Keyterm } from './room-glossaries';
import type { SpeechProviders, VocabularySTT } from './speech-providers';
import { LlmTranslator, type TextTranslator } from './translator';

/** What a provider reports through the framework's `error` events, logged instead of lost. */
export type ProviderErrorListener = (stage: 'stt' | 'translation' | 'tts', error: unknown, recoverable?: boolean) => void;

/** Sentence-level streaming over a per-request TTS: each sentence is synthesized as soon as it is complete. */
function sentences(engine: tts.TTS): tts.TTS {
  return new tts.StreamAdapter(engine, new tokenize.basic.SentenceTokenizer());
}

/** A recognizer that takes the room's glossary terms by `steer`. */
function withVocabulary<E extends stt.STT>(engine: E, steer: (keyterms: readonly Keyterm[]) => void): E & VocabularySTT {
  return Object.assign(engine, { setVocabulary: steer });
}

/**
 * OpenAI realtime transcription: `keywords` where the model takes them (gpt-transcribe,
 * gpt-live-transcribe), else the terms as its `prompt`. Both reach an open session at once (a
 * `session.update`), so a change applies from the next utterance.
 */
function openaiVocabulary(engine: openai.STT): (keyterms: readonly Keyterm[]) => void {
  return (keyterms) => {
    const terms = fillKeyterms(keyterms, OPENAI_TRANSCRIPTION_LIMIT);
    if (engine.capabilities.keyterms) engine._updateSessionKeyterms(terms);
    else engine.updateOptions({ prompt: terms.join(OPENAI_TRANSCRIPTION_LIMIT.separator) });
  };
}

/**
 * Deepgram's endpointing (silence that ends an utterance): its guide recommends 300–500 ms "for conversations
 * where speakers pause mid-thought" ("Configure Endpointing and Interim Results", read 2026-11-28); the
 * plugin's 25 ms cut utterances at every short pause, each translated without the rest of its sentence.
 */
export const DEEPGRAM_ENDPOINTING_MS = 400;

/** The Deepgram plugin's options for a track listening for `languages` (one in dual mode, both on a mono device). */
export function deepgramOptions(c: { apiKey: string; model: string }, languages: string[]): Partial<deepgram.STTOptions> {
  const table = languageTable('recognition', 'deepgram', c.model);
  return {
    apiKey: c.apiKey,
    model: c.model,
    // One language in dual mode (in Deepgram's name for it); `multi` (per-word language detection) when a device carries both.
    language: languages.length === 1 ? providerCode(table, languages[0]!) : 'multi',
    interimResults: true,
    endpointing: DEEPGRAM_ENDPOINTING_MS,
  };
}

function requireConfig<T>(value: T | null, name: string): T {
  if (!value) throw new Error(`${name} is not configured`);
  return value;
}

/**
 * The configured plugins, stage by stage. Construction opens no connection: each plugin connects
 * when a stream starts. `outputSampleRate` is the published tracks' rate, which synthesis matches.
 */
export function createSpeechProviders(
  config: SpeechPipelineConfig,
  outputSampleRate: number,
  onError: ProviderErrorListener,
  /** Wraps each per-request synthesis engine (the file translator times them). */
  wrapTts: (engine: tts.TTS) => tts.TTS = (engine) => engine,
): SpeechProviders {
  const ttsByLanguage = new Map<string, tts.TTS>();
  const oa = () => {
    const c = requireConfig(config.openai, 'OpenAI');
    return { apiKey: c.apiKey, ...(c.baseUrl ? { baseURL: c.baseUrl } : {}) };
  };

  const makeStt = (languages: string[]): stt.STT => {
    switch (config.stt) {
      case 'openai': {
        // Realtime transcription streams partial transcripts and cuts turns with OpenAI's server VAD.
        const engine = new openai.STT({
          ...oa(),
          model: requireConfig(config.openai, 'OpenAI').sttModel,
          language: languages,
          detectLanguage: languages.length !== 1,
          useRealtime: true,
        });
        return withVocabulary(engine, openaiVocabulary(engine));
      }
      case 'deepgram': {
        const engine = new deepgram.STT(deepgramOptions(requireConfig(config.deepgram, 'Deepgram'), languages));
        // The framework's session-keyterms hook: the plugin reopens an open stream with them at its next
        // end of speech (at once when nobody speaks), so a change applies from the next utterance.
        return withVocabulary(engine, (keyterms) => engine._updateSessionKeyterms(fillKeyterms(keyterms, DEEPGRAM_KEYTERM_LIMIT)));
      }
      case 'local':
        return new PocketSphinxSTT(requireConfig(config.local, 'the local pipeline'));
    }
  };

  let apertium: ApertiumTranslator | null = null;
  let translator: TextTranslator;
  switch (config.translation) {
    case 'openai': {
      const model = new openai.LLM({ ...oa(), model: requireConfig(config.openai, 'OpenAI').llmModel, temperature: 0 });
      translator = new LlmTranslator(model, { onError: (error, recoverable) => onError('translation', error, recoverable) });
      break;
    }
    case 'local':
      apertium = new ApertiumTranslator(requireConfig(config.local, 'the local pipeline').modes);
      translator = apertium;
      break;
  }

  const makeTts = (language: string, speed: number, simultaneous: boolean): tts.TTS => {
    switch (config.tts) {
      case 'openai': {
        const c = requireConfig(config.openai, 'OpenAI');
        return sentences(wrapTts(new openai.TTS({ ...oa(), model: c.ttsModel, voice: c.ttsVoice as openai.TTSOptions['voice'] })));
      }
      case 'elevenlabs': {
        const c = requireConfig(config.elevenlabs, 'ElevenLabs');
        return new elevenlabs.TTS({
          apiKey: c.apiKey,
          model: c.model,
          language: providerCode(languageTable('speech', 'elevenlabs', c.model), language),
          ...(c.voiceId ? { voiceId: c.voiceId } : {}),
        });
      }
      case 'local':
        return sentences(wrapTts(new EspeakTTS(language, outputSampleRate, undefined, speed, !simultaneous)));
    }
  };

  const localTargets = config.local ? new Set(config.local.targets) : null;
  const localStt = (source: string) => config.stt !== 'local' || source === 'en';
  const localTranslation = (source: string, target: string) =>
    config.translation !== 'local' || (apertium?.supports(source, target) ?? false);
  const localTts = (target: string) => config.tts !== 'local' || (localTargets?.has(target) ?? false);
  // A hosted model serves what its provider lists (libs/domain's tables); OpenAI's stages take any language.
  const deepgramModel = config.stt === 'deepgram' ? (config.deepgram?.model ?? null) : null;
  const elevenModel = config.tts === 'elevenlabs' ? (config.elevenlabs?.model ?? null) : null;
  const hostedStt = (source: string) =>
    deepgramModel === null || servesLanguage(languageTable('recognition', 'deepgram', deepgramModel), source);
  const hostedTts = (target: string) => elevenModel === null || servesLanguage(languageTable('speech', 'elevenlabs', elevenModel), target);
  return {
    label: `stt=${config.stt} translation=${config.translation} tts=${config.tts}`,
    stt: (languages) => makeStt(languages),
    translator,
    tts: (language, simultaneous) => {
      // Only the local voice speeds up and leaves out its pause; a hosted one is asked as it speaks.
      const local = config.tts === 'local' && simultaneous !== undefined;
      const rate = local ? simultaneous.speed : 1;
      const key = `${language}@${rate}${local ? '+' : ''}`;
      let engine = ttsByLanguage.get(key);
      if (!engine) {
        engine = makeTts(language, rate, local);
        engine.on('error', (error) => onError('tts', error.error, error.recoverable));
        ttsByLanguage.set(key, engine);
      }
      return engine;
    },
    // A hosted stage serves its provider's published languages; a local stage what its packages cover.
    supports: (source, target) =>
      localStt(source) && hostedStt(source) && localTranslation(source, target) && localTts(target) && hostedTts(target),
    whyNot: (source, target) => {
      const missing: string[] = [];
      if (!localStt(source))
        missing.push(
          `no PocketSphinx recognizer for "${source}" speech (Debian ships only en-us): set TRANSLATOR_STT=deepgram (DEEPGRAM_API_KEY) or openai (OPENAI_API_KEY)`,
        );
      if (!hostedStt(source))
        missing.push(`Deepgram ${deepgramModel} does not recognize "${source}": set TRANSLATOR_STT=openai (OPENAI_API_KEY)`);
      if (!localTranslation(source, target))
        missing.push(`no Apertium pair ${source}>${target} installed: set TRANSLATOR_TRANSLATION=openai (OPENAI_API_KEY)`);
      if (!localTts(target))
        missing.push(
          `no local voice for "${target}" (eSpeak NG speaks the installed Apertium targets): set TRANSLATOR_TTS=elevenlabs (ELEVEN_API_KEY) or openai (OPENAI_API_KEY)`,
        );
      if (!hostedTts(target))
        missing.push(`ElevenLabs ${elevenModel} does not speak "${target}": set TRANSLATOR_TTS=openai (OPENAI_API_KEY)`);
      return missing.join('; ');
    },
    close: async () => {
      apertium?.close();
      await Promise.all([...ttsByLanguage.values()].map((engine) => engine.close()));
    },
  };
}

/**
 * The local pipeline beside hosted stages, for directions they cannot serve: when its engines are installed
 * (some stage is local, so they were detected) and the stages are not all local already; null otherwise.
 */
export function createLocalFallback(
  config: SpeechPipelineConfig,
  outputSampleRate: number,
  onError: ProviderErrorListener,
): SpeechProviders | null {
  if (!config.local || (config.stt === 'local' && config.translation === 'local' && config.tts === 'local')) return null;
  return createSpeechProviders({ ...config, stt: 'local', translation: 'local', tts: 'local' }, outputSampleRate, onError);
}
