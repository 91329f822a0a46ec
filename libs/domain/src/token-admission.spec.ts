import { LanguageNotHeld } from './room-languages';
import { RoomModeMismatch, type StreamingMode } from './streaming-mode';
import { admitToken, changesNothing } from './token-admission';

describe('admitToken', () => {
  it.each<
    [StreamingMode | null, string[], string[], { mode: StreamingMode; setsMode: boolean; languages: string[]; addsLanguage: boolean }]
  >([
    [null, [], ['en'], { mode: 'dual', setsMode: true, languages: ['en'], addsLanguage: true }],
    [null, [], ['en', 'de'], { mode: 'mono', setsMode: true, languages: ['de', 'en'], addsLanguage: true }],
    [null, ['de', 'en'], ['en'], { mode: 'dual', setsMode: true, languages: ['de', 'en'], addsLanguage: false }],
    ['dual', ['en'], ['de'], { mode: 'dual', setsMode: false, languages: ['de', 'en'], addsLanguage: true }],
    ['dual', ['de', 'en'], ['en'], { mode: 'dual', setsMode: false, languages: ['de', 'en'], addsLanguage: false }],
    ['mono', ['de', 'en'], ['en', 'de'], { mode: 'mono', setsMode: false, languages: ['de', 'en'], addsLanguage: false }],
    ['mono', ['en'], ['en', 'en'], { mode: 'mono', setsMode: false, languages: ['en'], addsLanguage: false }],
  ])('%s room holding %j, token %j → %j', (mode, held, requested, expected) => {
    expect(admitToken({ mode, held }, requested)).toEqual(expected);
  });

  it('decides the mode before the languages: a token that fits neither is a mode mismatch', () => {
    expect(() => admitToken({ mode: 'mono', held: ['de', 'en'] }, ['fr'])).toThrow(RoomModeMismatch);
    expect(() => admitToken({ mode: 'dual', held: ['de', 'en'] }, ['fr'])).toThrow(LanguageNotHeld);
  });

  it.each([[[]], [['en', 'de', 'fr']]])('refuses a token of %j languages whatever the room holds', (requested) => {
    for (const mode of [null, 'mono', 'dual'] as const) {
      expect(() => admitToken({ mode, held: ['de', 'en', 'fr'] }, requested)).toThrow(RangeError);
    }
  });
});

describe('changesNothing', () => {
  it('only for a room with a mode whose held languages cover the token', () => {
    expect(changesNothing(admitToken({ mode: 'dual', held: ['en'] }, ['en']))).toBe(true);
    expect(changesNothing(admitToken({ mode: null, held: ['en'] }, ['en']))).toBe(false);
    expect(changesNothing(admitToken({ mode: 'dual', held: ['en'] }, ['de']))).toBe(false);
  });
});
