import { compileGlossary, compileRoomGlossaries } from './compiled-glossary';
import { validateGlossaryEntry, type GlossaryEntry } from './glossary-entries';

/** An entry as the API receives it, through the entry rules. */
function entry(input: Record<string, unknown>): GlossaryEntry {
  const result = validateGlossaryEntry(input);
  if (!result.ok) throw new Error(JSON.stringify(result.error));
  return result.value;
}

describe('compileGlossary', () => {
  const first = [
    entry({ terms: { en: 'forward', es: 'adelante' } }),
    entry({ terms: { es: 'metro', de: 'Meter' } }),
    entry({ terms: { en: 'Tenmeter' }, do_not_translate: true, sounds_like: { en: ['ten meters'] } }),
  ];
  const second = [
    entry({ terms: { en: 'Debian', fr: 'Debian' }, case_sensitive: true, sounds_like: { en: ['the bian'], fr: ['débiane'] } }),
  ];

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

describe('compileRoomGlossaries', () => {
  const glossary = [
    entry({ terms: { en: 'forward', es: 'adelante' } }),
    entry({ terms: { en: 'Tenmeter' }, do_not_translate: true }),
    entry({ terms: { fr: 'avant', es: 'hacia adelante' } }),
  ];

  it('compiles both directions of the pair, in the pair order, under the version given', () => {
    const room = compileRoomGlossaries([glossary], ['en', 'es'], 7);
    expect(room.version).toBe(7);
    expect(room.directions.map((d) => `${d.sourceLanguage}>${d.targetLanguage}`)).toEqual(['en>es', 'es>en']);
    expect(room.directions[0]?.entries.map((e) => [e.source, e.target])).toEqual([
      ['forward', 'adelante'],
      ['Tenmeter', 'Tenmeter'],
    ]);
    expect(room.directions[1]?.entries.map((e) => [e.source, e.target])).toEqual([
      ['adelante', 'forward'],
      ['hacia adelante', null],
    ]);
  });

  it('a room with no glossaries has both directions empty', () => {
    expect(compileRoomGlossaries([], ['de', 'en'], 0).directions.map((d) => d.entries)).toEqual([[], []]);
  });
});
