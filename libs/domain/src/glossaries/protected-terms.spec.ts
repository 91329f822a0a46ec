import type { CompiledGlossary } from './compiled-glossary';
import { createGlossaryMatcher, type GlossaryMatch } from './glossary-matcher';
import { DEFAULT_PLACEHOLDERS, letterPlaceholders, protectTerms, restoreTerms, type PlaceholderFormat } from './protected-terms';

const match = (text: string, start: number, target: string): GlossaryMatch => ({
  start,
  end: start + text.length,
  text,
  entry: 0,
  target,
});

describe('letterPlaceholders', () => {
  it('writes the index in letters only, prefix and suffix around', () => {
    expect([0, 1, 9, 10, 123].map((index) => DEFAULT_PLACEHOLDERS.render(index))).toEqual([
      'zqxbqz',
      'zqxcqz',
      'zqxmqz',
      'zqxcbqz',
      'zqxcdfqz',
    ]);
    expect(letterPlaceholders('Glo', 'Ssa').render(7)).toBe('GlokSsa');
  });

  it('refuses a prefix or suffix that could be read into the index', () => {
    expect(() => letterPlaceholders('zq1', 'qz')).toThrow();
    expect(() => letterPlaceholders('zqx', 'bz')).toThrow();
  });
});

describe('protectTerms and restoreTerms', () => {
  it('replaces each match by a placeholder, and puts the target terms back', () => {
    const source = 'go forward ten meters';
    const protectedText = protectTerms(source, [match('forward', 3, 'adelante'), match('meters', 15, 'meters')]);
    expect(protectedText).toEqual({ text: 'go zqxbqz ten zqxcqz', targets: ['adelante', 'meters'] });
    expect(restoreTerms('ir zqxbqz diez zqxcqz', protectedText.targets)).toEqual({ text: 'ir adelante diez meters', missing: [] });
  });

  it('finds placeholders whatever the engine did to their case, spacing and unknown-word marks', () => {
    const targets = ['adelante', 'Debian', 'Tenmeter'];
    expect(restoreTerms('Zqxbqz, *ZQXCQZ instala #zqxdqz .', targets).text).toBe('adelante, Debian instala Tenmeter .');
    expect(restoreTerms('dezqxbqz(zqxcqz)', targets).text).toBe('deadelante(Debian)');
  });

  it('reports placeholders the engine dropped and leaves unknown ones alone; a repeated one is restored each time', () => {
    expect(restoreTerms('zqxbqz zqxbqz zqxhqz', ['adelante', 'Debian'])).toEqual({ text: 'adelante adelante zqxhqz', missing: [1] });
  });

  it('handles terms at the start and the end, and text without matches', () => {
    const protectedText = protectTerms('Debian is great, Debian', [match('Debian', 0, 'Debian'), match('Debian', 17, 'Debian')]);
    expect(protectedText.text).toBe('zqxbqz is great, zqxcqz');
    expect(protectTerms('nothing here', [])).toEqual({ text: 'nothing here', targets: [] });
    expect(restoreTerms('nada aquí', [])).toEqual({ text: 'nada aquí', missing: [] });
  });

  it('takes any placeholder format', () => {
    const brackets: PlaceholderFormat = {
      render: (index) => `[[${index}]]`,
      pattern: /\[\[\s*(\d+)\s*\]\]/g,
      parse: (found) => Number(found[1]),
    };
    const protectedText = protectTerms('go forward', [match('forward', 3, 'adelante')], brackets);
    expect(protectedText.text).toBe('go [[0]]');
    expect(restoreTerms('ir [[ 0 ]]', protectedText.targets, brackets).text).toBe('ir adelante');
  });

  it('works end to end with the matcher: do_not_translate kept, an entry without a B term left to translation', () => {
    const compiled: CompiledGlossary = {
      sourceLanguage: 'en',
      targetLanguage: 'es',
      entries: [
        { source: 'forward', target: 'adelante', doNotTranslate: false, caseSensitive: false, soundsLike: [], priority: 0 },
        { source: 'meters', target: 'meters', doNotTranslate: true, caseSensitive: false, soundsLike: [], priority: 0 },
        { source: 'ten', target: null, doNotTranslate: false, caseSensitive: false, soundsLike: [], priority: 0 },
      ],
    };
    const source = 'Go forward ten meters.';
    const protectedText = protectTerms(source, createGlossaryMatcher(compiled).find(source));
    expect(protectedText.text).toBe('Go zqxbqz ten zqxcqz.');
    // what a rule-based engine might return for it
    const translated = 'Ir *zqxbqz diez *zqxcqz.';
    expect(restoreTerms(translated, protectedText.targets).text).toBe('Ir adelante diez meters.');
  });
});
