import { duplicateTermIssues, glossaryEntry, validateGlossaryEntry } from './glossary-entries';

const entry = glossaryEntry;

function issuesOf(input: unknown) {
  const result = validateGlossaryEntry(input);
  if (result.ok) throw new Error('expected issues');
  return result.error.map(({ loc, type }) => ({ loc, type }));
}

describe('validateGlossaryEntry', () => {
  it('accepts an entry, trims its terms and phrases and applies the defaults', () => {
    expect(validateGlossaryEntry({ terms: { en: ' forward ', es: 'adelante' } })).toEqual({
      ok: true,
      value: entry({ en: 'forward', es: 'adelante' }),
    });
    expect(
      validateGlossaryEntry({
        id: 'ignored',
        terms: { en: 'Tenmeter' },
        do_not_translate: true,
        case_sensitive: true,
        sounds_like: { en: [' ten meters', 'ten metres'] },
      }),
    ).toEqual({
      ok: true,
      value: entry({ en: 'Tenmeter' }, { doNotTranslate: true, caseSensitive: true, soundsLike: { en: ['ten meters', 'ten metres'] } }),
    });
  });

  it('accepts 10 terms and 200 characters (code points) per term and phrase', () => {
    const codes = ['en', 'es', 'de', 'fr', 'it', 'pt', 'nl', 'sv', 'da', 'fi'];
    const long = '😀'.repeat(200);
    expect(validateGlossaryEntry({ terms: Object.fromEntries(codes.map((code) => [code, long])), sounds_like: { en: [long] } }).ok).toBe(
      true,
    );
  });

  it('refuses what is not an object', () => {
    expect(issuesOf('forward')).toEqual([{ loc: [], type: 'dict_type' }]);
    expect(issuesOf(null)).toEqual([{ loc: [], type: 'dict_type' }]);
  });

  it('requires terms: 1 to 10 of supported languages', () => {
    expect(issuesOf({})).toEqual([{ loc: ['terms'], type: 'missing' }]);
    expect(issuesOf({ terms: ['forward'] })).toEqual([{ loc: ['terms'], type: 'dict_type' }]);
    expect(issuesOf({ terms: {} })).toEqual([{ loc: ['terms'], type: 'too_short' }]);
    const eleven = ['en', 'es', 'de', 'fr', 'it', 'pt', 'nl', 'sv', 'da', 'fi', 'pl'];
    expect(issuesOf({ terms: Object.fromEntries(eleven.map((code) => [code, 'x'])) })).toEqual([{ loc: ['terms'], type: 'too_long' }]);
    expect(issuesOf({ terms: { en: 'forward', EN: 'forward', 'es-ES': 'adelante' } })).toEqual([
      { loc: ['terms', 'EN'], type: 'unsupported_language' },
      { loc: ['terms', 'es-ES'], type: 'unsupported_language' },
    ]);
  });

  it('requires each term to be a string of 1 to 200 characters after trimming', () => {
    expect(issuesOf({ terms: { en: '   ', es: 'x'.repeat(201), de: 3 } })).toEqual([
      { loc: ['terms', 'en'], type: 'string_too_short' },
      { loc: ['terms', 'es'], type: 'string_too_long' },
      { loc: ['terms', 'de'], type: 'string_type' },
    ]);
    expect(validateGlossaryEntry({ terms: { en: ` ${'x'.repeat(200)} ` } }).ok).toBe(true);
  });

  it('requires booleans for do_not_translate and case_sensitive', () => {
    expect(issuesOf({ terms: { en: 'x' }, do_not_translate: 'true', case_sensitive: 1 })).toEqual([
      { loc: ['do_not_translate'], type: 'bool_type' },
      { loc: ['case_sensitive'], type: 'bool_type' },
    ]);
  });

  it('requires exactly one term with do_not_translate', () => {
    expect(issuesOf({ terms: { en: 'meters', es: 'metros' }, do_not_translate: true })).toEqual([{ loc: ['terms'], type: 'value_error' }]);
    expect(validateGlossaryEntry({ terms: { en: 'meters' }, do_not_translate: true }).ok).toBe(true);
  });

  it('checks sounds_like: languages of terms, 0 to 10 phrases of 1 to 200 characters', () => {
    expect(validateGlossaryEntry({ terms: { en: 'x' }, sounds_like: { en: [] } }).ok).toBe(true);
    expect(issuesOf({ terms: { en: 'x' }, sounds_like: ['x'] })).toEqual([{ loc: ['sounds_like'], type: 'dict_type' }]);
    expect(issuesOf({ terms: { en: 'x' }, sounds_like: { es: ['equis'], xx: ['y'], en: 'ex' } })).toEqual([
      { loc: ['sounds_like', 'es'], type: 'value_error' },
      { loc: ['sounds_like', 'xx'], type: 'unsupported_language' },
      { loc: ['sounds_like', 'en'], type: 'list_type' },
    ]);
    expect(issuesOf({ terms: { en: 'x' }, sounds_like: { en: Array.from({ length: 11 }, () => 'ex') } })).toEqual([
      { loc: ['sounds_like', 'en'], type: 'too_long' },
    ]);
    expect(issuesOf({ terms: { en: 'x' }, sounds_like: { en: ['ex', ' ', 'e'.repeat(201), 7] } })).toEqual([
      { loc: ['sounds_like', 'en', 1], type: 'string_too_short' },
      { loc: ['sounds_like', 'en', 2], type: 'string_too_long' },
      { loc: ['sounds_like', 'en', 3], type: 'string_type' },
    ]);
  });

  it('lists every problem at once, with the input and a message', () => {
    const result = validateGlossaryEntry({ terms: { en: '', es: 'metros' }, do_not_translate: true });
    expect(result).toEqual({
      ok: false,
      error: [
        {
          loc: ['terms', 'en'],
          type: 'string_too_short',
          msg: 'String should have at least 1 character',
          input: '',
          ctx: { min_length: 1 },
        },
        {
          loc: ['terms'],
          type: 'value_error',
          msg: 'Value error, an entry with do_not_translate has exactly one term.',
          input: { en: '', es: 'metros' },
          ctx: { error: 'an entry with do_not_translate has exactly one term' },
        },
      ],
    });
  });
});

describe('duplicateTermIssues', () => {
  it('finds the same term twice in one language, case-insensitively, at the later entry', () => {
    const issues = duplicateTermIssues([
      entry({ en: 'forward', es: 'adelante' }),
      entry({ en: 'go' }),
      entry({ en: 'Forward', fr: 'avant' }),
    ]);
    expect(issues).toEqual([
      {
        loc: [2, 'terms', 'en'],
        type: 'duplicate_term',
        msg: 'The term "Forward" (en) is already in entry 0.',
        input: 'Forward',
        ctx: { duplicate_of: 0 },
      },
    ]);
  });

  it('compares with whitespace runs as one space, NFC-normalized, accents significant', () => {
    const found = (a: string, b: string) => duplicateTermIssues([entry({ en: a }), entry({ en: b })]).length;
    expect(found('New York', 'new   york')).toBe(1);
    expect(found('café', 'cafe\u0301')).toBe(1);
    expect(found('café', 'cafe')).toBe(0);
    expect(found('Straße', 'STRASSE')).toBe(1);
    expect(found("O'Neil", 'O’Neil')).toBe(1);
    expect(found('Wi-Fi', 'Wi Fi')).toBe(0);
  });

  it('the same term in two languages is no duplicate', () => {
    expect(duplicateTermIssues([entry({ en: 'Berlin' }), entry({ de: 'Berlin' })])).toEqual([]);
  });

  it('case_sensitive entries differing only in case are distinct; with a case-insensitive one they clash', () => {
    const sensitive = { caseSensitive: true };
    expect(duplicateTermIssues([entry({ en: 'Apple' }, sensitive), entry({ en: 'apple' }, sensitive)])).toEqual([]);
    expect(duplicateTermIssues([entry({ en: 'Apple' }, sensitive), entry({ en: 'Apple' }, sensitive)])).toHaveLength(1);
    expect(duplicateTermIssues([entry({ en: 'Apple' }, sensitive), entry({ en: 'APPLE' })])).toHaveLength(1);
    expect(duplicateTermIssues([entry({ en: 'apple' }), entry({ en: 'Apple' }, sensitive)])).toHaveLength(1);
  });

  it('reports each repetition against the first', () => {
    const issues = duplicateTermIssues([entry({ en: 'go' }), entry({ en: 'GO' }), entry({ en: 'Go' })]);
    expect(issues.map((issue) => [issue.loc, issue.ctx])).toEqual([
      [[1, 'terms', 'en'], { duplicate_of: 0 }],
      [[2, 'terms', 'en'], { duplicate_of: 0 }],
    ]);
  });
});
