import type { RoomGlossaries } from '@app/contracts';
import { compileGlossary, glossaryEntry, type GlossaryEntry } from '@app/domain/glossaries';
import { GlossaryHolder } from './room-glossaries';

const entry = glossaryEntry;

function room(version: number, ...glossaries: GlossaryEntry[][]): RoomGlossaries {
  return { version, directions: [compileGlossary(glossaries, 'en', 'es'), compileGlossary(glossaries, 'es', 'en')] };
}

describe('GlossaryHolder', () => {
  const v1 = room(1, [entry({ en: 'forward', es: 'adelante' })]);
  const v2 = room(2, [entry({ en: 'meters', es: 'metros' }), entry({ es: 'coche', en: 'car' })]);

  it('takes a newer version and ignores an older or equal one, whatever order they come in', () => {
    const holder = new GlossaryHolder(v2);
    expect(holder.set(v1)).toBe(false);
    expect(holder.set(v2)).toBe(false);
    expect(holder.version).toBe(2);
    expect(holder.termsIn('go forward ten meters', [['en', 'es']])[0]!.matches.map((m) => m.text)).toEqual(['meters']);
    expect(holder.set(room(3))).toBe(true);
    expect(holder.direction('en', 'es')).toBeNull();
  });

  it('starts with none when given none, and takes any version first', () => {
    const holder = new GlossaryHolder();
    expect(holder.version).toBeNull();
    expect(holder.direction('en', 'es')).toBeNull();
    expect(holder.set(v1)).toBe(true);
    expect(holder.direction('en', 'es')?.glossary.entries).toHaveLength(1);
  });

  it('prepares each direction on its own: its source terms, their targets, keyterms and sounds_like', () => {
    const holder = new GlossaryHolder(
      room(1, [
        entry({ en: 'meters', es: 'metros' }),
        entry({ es: 'coche', en: 'car' }),
        entry({ en: 'Tenmeter' }, { doNotTranslate: true, soundsLike: { en: ['ten meters', 'Ten Meters'] } }),
      ]),
    );
    expect(holder.termsIn('un coche', [['es', 'en']])).toEqual([
      { source: 'es', target: 'en', matches: [{ start: 3, end: 8, text: 'coche', entry: 1, target: 'car', doNotTranslate: false }] },
    ]);
    expect(holder.termsIn('un coche', [['en', 'es']])).toEqual([]);
    const en = holder.direction('en', 'es')!;
    expect(en.keyterms.map((k) => k.text)).toEqual(['meters', 'car', 'Tenmeter', 'ten meters']);
    expect(en.replaceSoundsLike('go forward ten meters')).toBe('go forward Tenmeter');
    expect(holder.direction('es', 'en')!.keyterms.map((k) => k.text)).toEqual(['metros', 'coche']);
  });

  it('prepares a version once: every utterance reads the same prepared direction', () => {
    const holder = new GlossaryHolder(v1);
    expect(holder.direction('en', 'es')).toBe(holder.direction('en', 'es'));
  });

  it('tells its listeners of an accepted change only', () => {
    const holder = new GlossaryHolder(v1);
    const heard: (number | null)[] = [];
    const stop = holder.onChange(() => heard.push(holder.version));
    holder.set(v1);
    holder.set(v2);
    stop();
    holder.set(room(3));
    expect(heard).toEqual([2]);
  });
});
