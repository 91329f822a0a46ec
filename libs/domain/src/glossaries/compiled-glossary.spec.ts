import { compileGlossary } from './compiled-glossary';
import type { GlossaryEntry } from './glossary-entries';

const entry = (terms: Record<string, string>, options: Partial<GlossaryEntry> = {}): GlossaryEntry => ({
  terms,
  doNotTranslate: false,
  caseSensitive: false,
  soundsLike: {},
  ...options,
});

describe('compileGlossary', () => {
  const first = [
    entry({ en: 'forward', es: 'adelante' }),
    entry({ es: 'metro', de: 'Meter' }),
    entry({ en: 'Tenmeter' }, { doNotTranslate: true, soundsLike: { en: ['ten meters'] } }),
  ];
  const second = [entry({ en: 'Debian', fr: 'Debian' }, { caseSensitive: true, soundsLike: { en: ['the bian'], fr: ['débiane'] } })];

  it('keeps the entries with a term in A, in priority order, each with its target, case rule, phrases in A and priority', () => {
    expect(compileGlossary([first, second], 'en', 'es')).toEqual({
      sourceLanguage: 'en',
      targetLanguage: 'es',
      entries: [
        { source: 'forward', target: 'adelante', doNotTranslate: false, caseSensitive: false, soundsLike: [], priority: 0 },
        { source: 'Tenmeter', target: 'Tenmeter', doNotTranslate: true, caseSensitive: false, soundsLike: ['ten meters'], priority: 0 },
        { source: 'Debian', target: null, doNotTranslate: false, caseSensitive: true, soundsLike: ['the bian'], priority: 1 },
      ],
    });
  });

  it('serves the other direction from the same entries', () => {
    expect(compileGlossary([first, second], 'es', 'en').entries).toEqual([
      { source: 'adelante', target: 'forward', doNotTranslate: false, caseSensitive: false, soundsLike: [], priority: 0 },
      { source: 'metro', target: null, doNotTranslate: false, caseSensitive: false, soundsLike: [], priority: 0 },
    ]);
  });

  it('compiles no glossary to no entries, and survives a JSON round trip unchanged', () => {
    expect(compileGlossary([], 'en', 'es').entries).toEqual([]);
    const compiled = compileGlossary([first, second], 'en', 'es');
    expect(JSON.parse(JSON.stringify(compiled))).toEqual(compiled);
  });
});
