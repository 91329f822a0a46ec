import {
  directionLabel,
  primaryLanguage,
  recognitionLanguages,
  routeUtterance,
  translationTrackName,
  translationTrackNames,
  type UtteranceInput,
  type UtteranceRoute,
} from './translation-routing';

const room: [string, string] = ['de', 'en'];

describe('routeUtterance', () => {
  it.each<[string, UtteranceInput, UtteranceRoute]>([
    [
      'dual: a German speaker goes into English',
      { mode: 'dual', roomLanguages: room, speakerLanguages: ['de'] },
      { kind: 'translate', source: 'de', target: 'en' },
    ],
    [
      'dual: an English speaker goes into German',
      { mode: 'dual', roomLanguages: room, speakerLanguages: ['en'] },
      { kind: 'translate', source: 'en', target: 'de' },
    ],
    [
      'dual: the declared language wins over a wrong detection',
      { mode: 'dual', roomLanguages: room, speakerLanguages: ['en'], detectedLanguage: 'de' },
      { kind: 'translate', source: 'en', target: 'de' },
    ],
    [
      'dual: a region tag matches its primary language',
      { mode: 'dual', roomLanguages: room, speakerLanguages: ['en-GB'] },
      { kind: 'translate', source: 'en', target: 'de' },
    ],
    [
      'dual: a speaker outside the pair is not translated',
      { mode: 'dual', roomLanguages: room, speakerLanguages: ['fr'] },
      { kind: 'skip', reason: 'speaker-language-outside-room' },
    ],
    [
      'dual: a speaker without languages is not translated',
      { mode: 'dual', roomLanguages: room, speakerLanguages: [] },
      { kind: 'skip', reason: 'no-speaker-language' },
    ],
    [
      'mono: detected German goes into English',
      { mode: 'mono', roomLanguages: room, speakerLanguages: ['de', 'en'], detectedLanguage: 'de' },
      { kind: 'translate', source: 'de', target: 'en' },
    ],
    [
      'mono: detected English goes into German',
      { mode: 'mono', roomLanguages: room, speakerLanguages: ['de', 'en'], detectedLanguage: 'EN-us' },
      { kind: 'translate', source: 'en', target: 'de' },
    ],
    [
      'mono: without a detection nothing is guessed',
      { mode: 'mono', roomLanguages: room, speakerLanguages: ['de', 'en'], detectedLanguage: null },
      { kind: 'skip', reason: 'language-undetected' },
    ],
    [
      'mono: a third language is not translated',
      { mode: 'mono', roomLanguages: room, speakerLanguages: ['de', 'en'], detectedLanguage: 'fr' },
      { kind: 'skip', reason: 'language-outside-room' },
    ],
  ])('%s', (_name, input, expected) => {
    expect(routeUtterance(input)).toEqual(expected);
  });
});

describe('recognitionLanguages', () => {
  it.each<[UtteranceInput['mode'], string[], string[]]>([
    ['mono', ['de', 'en'], ['de', 'en']],
    ['dual', ['en'], ['en']],
    ['dual', ['de-AT'], ['de']],
    ['dual', ['fr'], []],
    ['dual', [], []],
  ])('%s with speaker %j listens for %j', (mode, speaker, expected) => {
    expect(recognitionLanguages(mode, room, speaker)).toEqual(expected);
  });
});

describe('track names and labels', () => {
  it.each([
    ['en', 'translation-en'],
    ['fil', 'translation-fil'],
  ])('%s → %s', (code, name) => {
    expect(translationTrackName(code)).toBe(name);
  });

  it('one track per room language', () => {
    expect(translationTrackNames(['de', 'en'])).toEqual(['translation-de', 'translation-en']);
  });

  it.each([
    ['en-US', 'en'],
    [' DE ', 'de'],
    ['zh_Hant', 'zh'],
  ])('primary language of %j is %s', (tag, primary) => {
    expect(primaryLanguage(tag)).toBe(primary);
  });

  it('direction label', () => {
    expect(directionLabel('en', 'de')).toBe('en>de');
  });
});
