import { SUPPORTED_LANGUAGES } from './languages';
import { admitLanguages, heldLanguages, inviteOffer, LanguageNotHeld, validateRequestedLanguages } from './room-languages';

describe('heldLanguages', () => {
  it.each<[(string[] | null)[], string[]]>([
    [[], []],
    [[['en']], ['en']],
    [
      [['en', 'de'], ['de'], ['en']],
      ['de', 'en'],
    ],
    [[['fr'], null, ['fr']], ['fr']],
  ])('%j → %j', (participants, held) => {
    expect(heldLanguages(participants)).toEqual(held);
  });
});

describe('admitLanguages', () => {
  it.each<[string[], string[], string[]]>([
    [[], ['en'], ['en']],
    [[], ['en', 'de'], ['de', 'en']],
    [['en'], ['en'], ['en']],
    [['en'], ['de'], ['de', 'en']],
    [['en'], ['en', 'de'], ['de', 'en']],
    [['de', 'en'], ['en'], ['de', 'en']],
    [
      ['de', 'en'],
      ['de', 'en'],
      ['de', 'en'],
    ],
    // more than two held (a lapsed reservation connected after all): a token of held languages changes nothing
    [
      ['de', 'en', 'fr'],
      ['fr', 'en'],
      ['de', 'en', 'fr'],
    ],
  ])('held %j + %j → %j', (held, requested, union) => {
    expect(admitLanguages(held, requested)).toEqual(union);
  });

  it.each<[string[], string[], string]>([
    [['de', 'en'], ['fr'], 'This room already holds English and German; a participant may only join with those languages.'],
    [['de', 'en'], ['en', 'fr'], 'This room already holds English and German; a participant may only join with those languages.'],
    [['en'], ['de', 'fr'], 'This room already holds English; a participant may only join with that language and at most one other.'],
    [['de', 'en', 'fr'], ['es'], 'This room already holds English, French and German; a participant may only join with those languages.'],
  ])('held %j refuses %j', (held, requested, message) => {
    const act = () => admitLanguages(held, requested);
    expect(act).toThrow(LanguageNotHeld);
    expect(act).toThrow(message);
  });

  it('names the conflict code', () => {
    expect(new LanguageNotHeld(['en'], ['de', 'fr']).code).toBe('language_not_held');
  });
});

describe('inviteOffer', () => {
  it.each([[[]], [['en']]])('offers every supported language while %j is held', (held) => {
    expect(inviteOffer(held)).toEqual(SUPPORTED_LANGUAGES);
  });

  it.each([
    [
      ['en', 'de'],
      ['English', 'German'],
    ],
    [
      ['zh', 'ar'],
      ['Arabic', 'Chinese'],
    ],
  ])('offers exactly the two held (%j), sorted by name', (held, names) => {
    expect(inviteOffer(held).map((language) => language.name)).toEqual(names);
  });
});

describe('validateRequestedLanguages', () => {
  it.each([[['en']], [['en', 'de']]])('accepts %j', (requested) => {
    expect(validateRequestedLanguages(requested)).toEqual({ ok: true, value: requested });
  });

  it.each<[string[], [(string | number)[], string][]]>([
    [[], [[['languages'], 'too_short']]],
    [['en', 'de', 'fr'], [[['languages'], 'too_long']]],
    [['xx'], [[['languages', 0], 'unsupported_language']]],
    [['EN'], [[['languages', 0], 'unsupported_language']]],
    [['en', 'en'], [[['languages', 1], 'duplicate_language']]],
    [
      ['en', 'xx', 'en'],
      [
        [['languages'], 'too_long'],
        [['languages', 1], 'unsupported_language'],
        [['languages', 2], 'duplicate_language'],
      ],
    ],
  ])('refuses %j', (requested, expected) => {
    const result = validateRequestedLanguages(requested);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.map((issue) => [issue.loc, issue.type])).toEqual(expected);
  });
});
