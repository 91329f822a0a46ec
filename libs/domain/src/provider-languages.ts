/**
 * Which of the supported languages each hosted provider's model serves, from the provider's published
 * list, and the code it takes for each (where it names a language differently from `SUPPORTED_LANGUAGES`).
 * A model not listed here is taken to serve every language: the provider, not this table, refuses it.
 */
import { SUPPORTED_LANGUAGES } from './languages';

/** The stage a table is for: speech recognition, text translation, speech synthesis, speech-to-speech output. */
export type CoverageStage = 'recognition' | 'translation' | 'speech' | 'realtime';

export interface LanguageTable {
  stage: CoverageStage;
  provider: string;
  model: string;
  /** Room language code → the provider's code for it. */
  codes: Readonly<Record<string, string>>;
  /** Where the list was read, and when. */
  source: string;
}

function table(
  stage: CoverageStage,
  provider: string,
  model: string,
  codes: readonly string[],
  renamed: Readonly<Record<string, string>>,
  source: string,
): LanguageTable {
  return Object.freeze({
    stage,
    provider,
    model,
    codes: Object.freeze(Object.fromEntries(codes.map((code) => [code, renamed[code] ?? code]))),
    source,
  });
}

/**
 * Deepgram Nova-3, monolingual streaming models: English plus the languages of Deepgram's changelog
 * "Nova-3 Model Update" entries of 2025-08-15 (de nl sv da), 2025-09-02 (es fr pt), 2025-09-16 (it tr no id),
 * 2025-11-04 (bg cs fi hi hu ja ko pl ru uk vi), 2025-11-24 (ca et el lv lt ms ro sk), 2026-01-21 (be bn bs
 * hr kn mk mr sr sl ta tl te), 2026-02-03 (he fa ur), 2026-03-17 (th), 2026-03-31 (zh) and 2026-08-05 (pa ne),
 * read 2026-11-28 (developers.deepgram.com/changelog; "Models & Languages Overview" is the full list).
 * Deepgram names Filipino `tl` (Tagalog) and Norwegian Bokmål `no`. Not served: af sq am ar hy az eu my gl
 * ka gu is ga kk km lo ml mt mn si so sw uz cy zu (af, hy and ka are said elsewhere to have followed in
 * August 2026; Deepgram's own changelog, as read, does not list them). `language=multi` (a mono device) is
 * another model with another list (55 languages since the changelog of 2026-10-23, on the "Nova-3 Language
 * Prompting" page: it adds af ar gl gu zu and lacks ur pa ne): not kept here yet, so a mono room's coverage
 * with Deepgram is this table's.
 */
export const DEEPGRAM_NOVA_3 = table(
  'recognition',
  'deepgram',
  'nova-3',
  // prettier-ignore
  [
    'en', 'de', 'nl', 'sv', 'da', 'es', 'fr', 'pt', 'it', 'tr', 'nb', 'id', 'bg', 'cs', 'fi', 'hi', 'hu', 'ja', 'ko',
    'pl', 'ru', 'uk', 'vi', 'ca', 'et', 'el', 'lv', 'lt', 'ms', 'ro', 'sk', 'bn', 'bs', 'hr', 'kn', 'mk', 'mr', 'sr',
    'sl', 'ta', 'fil', 'te', 'he', 'fa', 'ur', 'th', 'zh', 'pa', 'ne',
  ],
  { fil: 'tl', nb: 'no' },
  'Deepgram changelog, "Nova-3 Model Update" entries 2025-08-15 to 2026-08-05, read 2026-11-28',
);

/**
 * ElevenLabs Flash v2.5: "All eleven_multilingual_v2 languages plus: hu, no, vi" (32), from
 * elevenlabs.io/docs/overview/models, read 2026-11-28. ElevenLabs names Norwegian `no`.
 */
export const ELEVENLABS_FLASH_V2_5 = table(
  'speech',
  'elevenlabs',
  'eleven_flash_v2_5',
  // prettier-ignore
  [
    'en', 'ja', 'zh', 'de', 'hi', 'fr', 'ko', 'pt', 'it', 'es', 'id', 'nl', 'tr', 'fil', 'pl', 'sv', 'bg', 'ro', 'ar',
    'cs', 'el', 'fi', 'hr', 'ms', 'sk', 'da', 'ta', 'uk', 'ru', 'hu', 'nb', 'vi',
  ],
  { nb: 'no' },
  'elevenlabs.io/docs/overview/models (eleven_flash_v2_5), read 2026-11-28',
);

/**
 * OpenAI realtime translation (`gpt-realtime-translate`): the 13 languages it speaks (`audio.output.language`).
 * Its guide (developers.openai.com/api/docs/guides/realtime-translation) lists them; the excerpts found on
 * 2026-11-28 did not show the list, so it is taken as the project's review of that guide recorded it (a
 * third-party summary of the same guide says "70+ in / 13 out"). Speech in is not restricted here: no list of
 * input languages was found.
 */
export const OPENAI_REALTIME_TRANSLATE = table(
  'realtime',
  'openai',
  'gpt-realtime-translate',
  ['es', 'pt', 'fr', 'ja', 'ru', 'zh', 'de', 'ko', 'hi', 'id', 'vi', 'it', 'en'],
  {},
  'OpenAI "Realtime translation" guide, output languages as recorded in review 2026-11; excerpts read 2026-11-28',
);

export const LANGUAGE_TABLES: readonly LanguageTable[] = Object.freeze([DEEPGRAM_NOVA_3, ELEVENLABS_FLASH_V2_5, OPENAI_REALTIME_TRANSLATE]);

/** The table of a provider's model for a stage; null when none is kept (the model is taken to serve every language). */
export function languageTable(stage: CoverageStage, provider: string, model: string): LanguageTable | null {
  return LANGUAGE_TABLES.find((t) => t.stage === stage && t.provider === provider && t.model === model) ?? null;
}

/** Whether the model serves a room language; a model without a table serves all. */
export function servesLanguage(table: LanguageTable | null, code: string): boolean {
  return table === null || Object.hasOwn(table.codes, code);
}

/** The code the provider takes for a room language: its own name for it, or the room's code when it keeps none. */
export function providerCode(table: LanguageTable | null, code: string): string {
  return table?.codes[code] ?? code;
}

/** The supported languages a table leaves out, in code order. */
export function unservedLanguages(table: LanguageTable): string[] {
  return SUPPORTED_LANGUAGES.map((l) => l.code)
    .filter((code) => !Object.hasOwn(table.codes, code))
    .sort();
}
