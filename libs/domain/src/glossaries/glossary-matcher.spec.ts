import type { CompiledGlossary, CompiledGlossaryEntry } from './compiled-glossary';
import { createGlossaryMatcher } from './glossary-matcher';

type Spec = Partial<CompiledGlossaryEntry> & { source: string };

function glossary(...entries: Spec[]): CompiledGlossary {
  return {
    sourceLanguage: 'en',
    targetLanguage: 'es',
    entries: entries.map((entry) => ({
      target: `<${entry.source}>`,
      doNotTranslate: false,
      caseSensitive: false,
      soundsLike: [],
      priority: 0,
      ...entry,
    })),
  };
}

/** The matched slices and their targets, in text order. */
function found(compiled: CompiledGlossary, text: string): [string, string][] {
  return createGlossaryMatcher(compiled)
    .find(text)
    .map((match) => {
      expect(text.slice(match.start, match.end)).toBe(match.text);
      return [match.text, match.target];
    });
}

describe('createGlossaryMatcher', () => {
  it('matches whole words only', () => {
    const compiled = glossary({ source: 'forward', target: 'adelante' }, { source: 'go' });
    expect(found(compiled, 'go forward ten meters')).toEqual([
      ['go', '<go>'],
      ['forward', 'adelante'],
    ]);
    expect(found(compiled, 'forwards, good, ago, forwarding, go2')).toEqual([]);
    expect(found(compiled, 'fast-forward')).toEqual([['forward', 'adelante']]);
  });

  it('finds a term at the start and at the end of an utterance, and an utterance that is only the term', () => {
    const compiled = glossary({ source: 'forward' });
    expect(found(compiled, 'forward we go forward')).toEqual([
      ['forward', '<forward>'],
      ['forward', '<forward>'],
    ]);
    expect(found(compiled, 'Forward')).toEqual([['Forward', '<forward>']]);
    expect(found(compiled, '')).toEqual([]);
  });

  it('is case-insensitive unless the entry is case_sensitive', () => {
    expect(found(glossary({ source: 'debian' }), 'DEBIAN and Debian')).toHaveLength(2);
    const sensitive = glossary({ source: 'Apple', caseSensitive: true, target: 'Apple Inc.' });
    expect(found(sensitive, 'an apple from Apple, APPLE')).toEqual([['Apple', 'Apple Inc.']]);
    expect(found(glossary({ source: 'STRASSE' }), 'die Straße')).toEqual([['Straße', '<STRASSE>']]);
  });

  it('handles punctuation and accents around terms', () => {
    const compiled = glossary({ source: 'Zoë' }, { source: 'café' });
    expect(found(compiled, '"Zoë," she said; (café) café. cafés cafe')).toEqual([
      ['Zoë', '<Zoë>'],
      ['café', '<café>'],
      ['café', '<café>'],
    ]);
    // a decomposed accent is the same letter; an accent is part of the word
    expect(found(compiled, 'Zoe\u0308! Zoe')).toEqual([['Zoe\u0308', '<Zoë>']]);
    expect(found(compiled, 'cafe\u0301s')).toEqual([]);
  });

  it('matches terms holding spaces and punctuation, whitespace runs as one space', () => {
    const compiled = glossary({ source: 'New York' }, { source: 'Wi-Fi' }, { source: "O'Neil" }, { source: 'C++' }, { source: '.NET' });
    expect(found(compiled, 'new  york has Wi-Fi, O’Neil writes C++ and .NET.')).toEqual([
      ['new  york', '<New York>'],
      ['Wi-Fi', '<Wi-Fi>'],
      ['O’Neil', "<O'Neil>"],
      ['C++', '<C++>'],
      ['.NET', '<.NET>'],
    ]);
    expect(found(compiled, 'New-York, Wi Fi, C and NET')).toEqual([]);
  });

  it('prefers the longest match first', () => {
    const compiled = glossary({ source: 'York' }, { source: 'New York' }, { source: 'New York City' });
    expect(found(compiled, 'New York City and New York and York')).toEqual([
      ['New York City', '<New York City>'],
      ['New York', '<New York>'],
      ['York', '<York>'],
    ]);
  });

  it('between matches of equal length, prefers the earlier glossary, whatever the entry order', () => {
    const compiled = glossary({ source: 'forward', target: 'avanti', priority: 1 }, { source: 'Forward', target: 'adelante', priority: 0 });
    expect(found(compiled, 'go forward')).toEqual([['forward', 'adelante']]);
  });

  it('resolves overlapping entries: the longer, then the earlier glossary, then the earlier position; never overlapping', () => {
    const compiled = glossary(
      { source: 'ten meters', priority: 1 },
      { source: 'go forward', priority: 1 },
      { source: 'forward ten', priority: 0 },
      { source: 'meters per second', priority: 1 },
    );
    // "forward ten" overlaps "go forward" (same length, earlier glossary wins) and "ten meters";
    // "meters per second" is longest and overlaps "ten meters".
    expect(found(compiled, 'go forward ten meters per second')).toEqual([
      ['forward ten', '<forward ten>'],
      ['meters per second', '<meters per second>'],
    ]);
    // same length, same glossary: the earlier position wins
    const same = glossary({ source: 'b c' }, { source: 'a b' });
    expect(found(same, 'a b c')).toEqual([['a b', '<a b>']]);
  });

  it('leaves an entry without a B term alone: no match, and it does not block another', () => {
    const compiled = glossary({ source: 'New York', target: null }, { source: 'York', target: 'Yorkshire' });
    expect(found(compiled, 'New York')).toEqual([['York', 'Yorkshire']]);
  });

  it('gives do_not_translate entries their term as written', () => {
    const compiled = glossary({ source: 'meters', target: 'meters', doNotTranslate: true });
    expect(found(compiled, 'ten Meters')).toEqual([['Meters', 'meters']]);
  });

  it('matches in scripts without spaces character by character, and in other scripts by words', () => {
    const compiled = glossary({ source: '東京' }, { source: 'Москва' }, { source: 'مرحبا' });
    expect(found(compiled, '私は東京に行く')).toEqual([['東京', '<東京>']]);
    expect(found(compiled, 'в Москву, в МОСКВА! مرحبا.')).toEqual([
      ['МОСКВА', '<Москва>'],
      ['مرحبا', '<مرحبا>'],
    ]);
  });

  it('ignores a term without any word, which can never match whole words', () => {
    expect(found(glossary({ source: '+++' }), 'a +++ b')).toEqual([]);
  });

  it('compiles and matches 10,000 entries correctly', () => {
    const entries: Spec[] = Array.from({ length: 10_000 }, (_, i) => ({ source: `term${i} word`, target: `T${i}`, priority: i % 5 }));
    entries.push({ source: 'term42', target: 'short', priority: 0 });
    const matcher = createGlossaryMatcher(glossary(...entries));
    const text = 'say term42 word then term9999 word and term10000 word, TERM0 WORD and term42';
    expect(matcher.find(text).map((match) => [match.text, match.target])).toEqual([
      ['term42 word', 'T42'],
      ['term9999 word', 'T9999'],
      ['TERM0 WORD', 'T0'],
      ['term42', 'short'],
    ]);
  });
});
