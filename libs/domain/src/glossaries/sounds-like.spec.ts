import type { CompiledGlossary, CompiledGlossaryEntry } from './compiled-glossary';
import { createSoundsLikeReplacer } from './sounds-like';

function glossary(...entries: (Partial<CompiledGlossaryEntry> & { source: string; soundsLike: string[] })[]): CompiledGlossary {
  return {
    sourceLanguage: 'en',
    targetLanguage: 'es',
    entries: entries.map((entry) => ({ target: null, doNotTranslate: false, caseSensitive: false, priority: 0, ...entry })),
  };
}

describe('createSoundsLikeReplacer', () => {
  const replace = createSoundsLikeReplacer(
    glossary({ source: 'Tenmeter', target: 'Tenmeter', doNotTranslate: true, soundsLike: ['ten meters', 'ten metres'] }),
  );

  it('replaces a heard phrase by the term as written', () => {
    expect(replace('go forward ten meters')).toBe('go forward Tenmeter');
  });

  it('matches whole words, case-insensitively, at the start and the end, around punctuation', () => {
    expect(replace('Ten Meters, then TEN METRES.')).toBe('Tenmeter, then Tenmeter.');
    expect(replace('ten  meters')).toBe('Tenmeter');
    expect(replace('often meters, ten metersticks')).toBe('often meters, ten metersticks');
  });

  it('leaves text without a phrase unchanged, and an empty glossary changes nothing', () => {
    expect(replace('go forward')).toBe('go forward');
    expect(createSoundsLikeReplacer(glossary())('go forward ten meters')).toBe('go forward ten meters');
  });

  it('replaces the longest phrase first, then the earlier glossary', () => {
    const longest = createSoundsLikeReplacer(
      glossary(
        { source: 'Meter', soundsLike: ['meters'], priority: 0 },
        { source: 'Tenmeter', soundsLike: ['ten meters'], priority: 1 },
        { source: 'Ten', soundsLike: ['ten'], priority: 0 },
      ),
    );
    expect(longest('ten meters, ten, meters')).toBe('Tenmeter, Ten, Meter');
    const priority = createSoundsLikeReplacer(
      glossary({ source: 'Debby', soundsLike: ['deb'], priority: 1 }, { source: 'Debian', soundsLike: ['Deb'], priority: 0 }),
    );
    expect(priority('install deb now')).toBe('install Debian now');
  });
});
