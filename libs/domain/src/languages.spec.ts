import { findLanguage, isSupportedLanguage, languagesByName, SUPPORTED_LANGUAGES } from './languages';

describe('SUPPORTED_LANGUAGES', () => {
  const codes = SUPPORTED_LANGUAGES.map((language) => language.code);
  const names = SUPPORTED_LANGUAGES.map((language) => language.name);

  it('holds at least 40 languages', () => {
    expect(SUPPORTED_LANGUAGES.length).toBeGreaterThanOrEqual(40);
  });

  it('is sorted by name in plain code-unit order', () => {
    expect(names).toEqual([...names].sort());
  });

  it('has unique codes and unique names', () => {
    expect(new Set(codes).size).toBe(codes.length);
    expect(new Set(names).size).toBe(names.length);
  });

  it.each(codes)('%s is a canonical BCP-47 primary language subtag', (code) => {
    expect(code).toMatch(/^[a-z]{2,3}$/);
    expect(Intl.getCanonicalLocales(code)[0]).toBe(code);
  });

  it('cannot be mutated', () => {
    expect(Object.isFrozen(SUPPORTED_LANGUAGES)).toBe(true);
    expect(Object.isFrozen(SUPPORTED_LANGUAGES[0])).toBe(true);
  });
});

describe('isSupportedLanguage / findLanguage', () => {
  it.each([
    ['en', true],
    ['zh', true],
    ['fil', true],
    ['EN', false],
    ['en-US', false],
    ['tl', false],
    ['', false],
    ['xx', false],
  ])('%s → %s', (code, supported) => {
    expect(isSupportedLanguage(code)).toBe(supported);
    expect(findLanguage(code) !== undefined).toBe(supported);
  });

  it('finds the English name', () => {
    expect(findLanguage('de')).toEqual({ code: 'de', name: 'German' });
  });
});

describe('languagesByName', () => {
  it.each([
    [[], []],
    [['en'], ['English']],
    [
      ['en', 'de'],
      ['English', 'German'],
    ],
    [
      ['de', 'en'],
      ['English', 'German'],
    ],
    [
      ['zh', 'ar', 'zh'],
      ['Arabic', 'Chinese'],
    ],
    [['xx', 'fr'], ['French']],
  ])('%j → %j', (codes, expected) => {
    expect(languagesByName(codes).map((language) => language.name)).toEqual(expected);
  });
});
