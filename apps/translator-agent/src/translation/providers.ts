import { tokenize, tts } from '@livekit/agents';
import * as openai from '@livekit/agents-plugin-openai';
import type { SpeechPipelineConfig } from '../config';
import type { SpeechProviders } from './speaker-pipeline';

/** The real provider plugins for the configured pipeline. */
export function createSpeechProviders(config: SpeechPipelineConfig): SpeechProviders {
  switch (config.provider) {
    case 'openai': {
      const common = { apiKey: config.apiKey, ...(config.baseUrl ? { baseURL: config.baseUrl } : {}) };
      return {
        // Realtime transcription streams partial transcripts; its VAD is agents' bundled local one.
        stt: (languages) =>
          new openai.STT({
            ...common,
            model: config.sttModel,
            language: languages,
            detectLanguage: languages.length !== 1,
            useRealtime: true,
          }),
        llm: new openai.LLM({ ...common, model: config.llmModel, temperature: 0 }),
        // OpenAI speech is per request: the adapter synthesizes each sentence as soon as it is complete.
        tts: new tts.StreamAdapter(
          new openai.TTS({ ...common, model: config.ttsModel, voice: config.ttsVoice as openai.TTSOptions['voice'] }),
          new tokenize.basic.SentenceTokenizer(),
        ),
      };
    }
  }
}
