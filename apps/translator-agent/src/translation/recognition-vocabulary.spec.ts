import { DEEPGRAM_KEYTERM_LIMIT, estimatedTokens, fillKeyterms, mergeKeyterms, OPENAI_TRANSCRIPTION_LIMIT } from './recognition-vocabulary';

const terms = (...texts: string[]) => texts.map((text) => ({ text, priority: 0 }));

describe('a recognizer’s glossary vocabulary', () => {
  it('estimates tokens on the high side: about three ASCII characters a token, one for any other character', () => {
    expect(estimatedTokens('Tenmeter')).toBe(3);
    expect(estimatedTokens('café')).toBe(2);
    expect(estimatedTokens('東京')).toBe(2);
  });

  it('fills in the given (priority) order, leaving out a term that would go over and trying the next', () => {
    expect(fillKeyterms(terms('alpha', 'a much longer phrase than fits', 'beta'), { maxChars: 12, separator: ', ' })).toEqual([
      'alpha',
      'beta',
    ]);
    expect(fillKeyterms(terms('one', 'two', 'three'), { maxTerms: 2 })).toEqual(['one', 'two']);
  });

  it('keeps Deepgram within 100 keyterms and 500 estimated tokens', () => {
    const many = terms(...Array.from({ length: 150 }, (_, i) => `Keyterm${i}`));
    expect(fillKeyterms(many, DEEPGRAM_KEYTERM_LIMIT)).toEqual(many.slice(0, 100).map((t) => t.text));
    const long = terms(...Array.from({ length: 100 }, (_, i) => `a rather long product name number ${i}`));
    const chosen = fillKeyterms(long, DEEPGRAM_KEYTERM_LIMIT);
    expect(chosen.reduce((sum, t) => sum + estimatedTokens(t), 0)).toBeLessThanOrEqual(500);
    expect(chosen).toEqual(long.slice(0, chosen.length).map((t) => t.text));
  });

  it('keeps an OpenAI prompt within 1,024 characters, joined by commas', () => {
    const chosen = fillKeyterms(terms(...Array.from({ length: 200 }, (_, i) => `Product ${i}`)), OPENAI_TRANSCRIPTION_LIMIT);
    expect(chosen.join(', ').length).toBeLessThanOrEqual(1024);
    expect(chosen.join(', ').length).toBeGreaterThan(1000);
    expect(chosen[0]).toBe('Product 0');
  });

  it('merges the languages of a mono recognizer by priority, each term once', () => {
    const en = [
      { text: 'Acme', priority: 0 },
      { text: 'Widget', priority: 1 },
    ];
    const es = [
      { text: 'acme', priority: 0 },
      { text: 'Cosa', priority: 0 },
      { text: 'Otra', priority: 1 },
    ];
    expect(mergeKeyterms([en, es]).map((t) => t.text)).toEqual(['Acme', 'Cosa', 'Widget', 'Otra']);
  });
});
