import { compileGlossary } from './compiled-glossary';
import { createPhraseStarts } from './phrase-starts';

describe('createPhraseStarts', () => {
  const glossary = compileGlossary(
    [
      [
        { terms: { en: 'Tenmeter' }, doNotTranslate: true, caseSensitive: false, soundsLike: { en: ['ten meters'] } },
        { terms: { en: 'machine learning model', es: 'modelo' }, doNotTranslate: false, caseSensitive: true, soundsLike: {} },
      ],
    ],
    'en',
    'es',
  );
  const startsPhrase = createPhraseStarts(glossary);

  it.each([
    ['ten', true],
    ['Ten', true],
    ['machine', true],
    ['Machine learning', true],
    ['ten meters', false], // the whole phrase: nothing to wait for
    ['machine learning model', false],
    ['meters', false],
    ['forward ten', false], // only the words that would start it
    ['', false],
  ])('%j → %s', (text, expected) => {
    expect(startsPhrase(text)).toBe(expected);
  });

  it('is false for every text when no term has more than one word', () => {
    const single = createPhraseStarts(
      compileGlossary(
        [[{ terms: { en: 'forward', es: 'adelante' }, doNotTranslate: false, caseSensitive: false, soundsLike: {} }]],
        'en',
        'es',
      ),
    );
    expect(single('forward')).toBe(false);
  });
});
