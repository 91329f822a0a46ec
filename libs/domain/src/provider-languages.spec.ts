import { isSupportedLanguage } from './languages';
import {
  DEEPGRAM_NOVA_3,
  ELEVENLABS_FLASH_V2_5,
  LANGUAGE_TABLES,
  languageTable,
  OPENAI_REALTIME_TRANSLATE,
  providerCode,
  servesLanguage,
  unservedLanguages,
} from './provider-languages';

describe('provider language tables', () => {
  it.each(LANGUAGE_TABLES.map((t) => [`${t.provider} ${t.model}`, t] as const))('%s keys only supported languages', (_name, t) => {
    for (const code of Object.keys(t.codes)) expect(isSupportedLanguage(code)).toBe(true);
    expect(t.source).toMatch(/read 2026-\d\d-\d\d/);
    expect(Object.isFrozen(t.codes)).toBe(true);
  });

  it('holds the published counts: ElevenLabs Flash v2.5 speaks 32, realtime translation 13, Nova-3 leaves about 20 out', () => {
    expect(Object.keys(ELEVENLABS_FLASH_V2_5.codes)).toHaveLength(32);
    expect(Object.keys(OPENAI_REALTIME_TRANSLATE.codes).sort()).toEqual(
      ['de', 'en', 'es', 'fr', 'hi', 'id', 'it', 'ja', 'ko', 'pt', 'ru', 'vi', 'zh'].sort(),
    );
    expect(unservedLanguages(DEEPGRAM_NOVA_3)).toEqual([
      'af',
      'am',
      'ar',
      'az',
      'cy',
      'eu',
      'ga',
      'gl',
      'gu',
      'hy',
      'is',
      'ka',
      'kk',
      'km',
      'lo',
      'ml',
      'mn',
      'mt',
      'my',
      'si',
      'so',
      'sq',
      'sw',
      'uz',
      'zu',
    ]);
  });

  it.each([
    ['Deepgram Nova-3', 'fil', DEEPGRAM_NOVA_3, 'tl'],
    ['Deepgram Nova-3', 'nb', DEEPGRAM_NOVA_3, 'no'],
    ['Deepgram Nova-3', 'de', DEEPGRAM_NOVA_3, 'de'],
    ['ElevenLabs Flash v2.5', 'nb', ELEVENLABS_FLASH_V2_5, 'no'],
    ['ElevenLabs Flash v2.5', 'fil', ELEVENLABS_FLASH_V2_5, 'fil'],
    ['a model without a table', 'nb', null, 'nb'],
  ])('%s names %s by its own code', (_name, code, t, expected) => {
    expect(providerCode(t, code)).toBe(expected);
  });

  it.each([
    ['recognition', 'deepgram', 'nova-3', 'am', false],
    ['recognition', 'deepgram', 'nova-3', 'fil', true],
    ['recognition', 'deepgram', 'nova-2', 'am', true], // no table kept: the provider decides
    ['speech', 'elevenlabs', 'eleven_flash_v2_5', 'nl', true],
    ['speech', 'elevenlabs', 'eleven_flash_v2_5', 'he', false],
    ['realtime', 'openai', 'gpt-realtime-translate', 'nl', false],
    ['realtime', 'openai', 'gpt-realtime-translate', 'en', true],
    ['translation', 'openai', 'gpt-4.1-mini', 'zu', true],
  ] as const)('%s %s %s serves %s: %s', (stage, provider, model, code, expected) => {
    expect(servesLanguage(languageTable(stage, provider, model), code)).toBe(expected);
  });
});
