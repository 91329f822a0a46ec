import type { RoomGlossaries } from '@app/contracts';
import { compileGlossary, validateGlossaryEntry, type GlossaryEntry } from '@app/domain/glossaries';
import { initializeLogger } from '@livekit/agents';
import { dispose } from '@livekit/rtc-node';
import { goForward, localProviders } from '../../test/support/local-speech';
import { translateFile, type FileTranslationDetail } from '../tools/file-translation';
import { GlossaryHolder } from '../translation/room-glossaries';
import { OUTPUT_SAMPLE_RATE } from '../translation/room-translator';
import type { SpeechProviders } from '../translation/speech-providers';
import { DEFAULT_CHUNK_POLICY } from '../translation/stable-chunks';

initializeLogger({ pretty: false, level: 'error' });

/** An en–es room's glossaries holding one glossary with these entries (as the API takes them). */
function roomGlossaries(version: number, entries: Record<string, unknown>[]): RoomGlossaries {
  const glossary: GlossaryEntry[] = entries.map((input) => {
    const result = validateGlossaryEntry(input);
    if (!result.ok) throw new Error(JSON.stringify(result.error));
    return result.value;
  });
  return { version, directions: [compileGlossary([glossary], 'en', 'es'), compileGlossary([glossary], 'es', 'en')] };
}

/**
 * "go forward ten meters" (goforward.raw) through the local pipeline (PocketSphinx → Apertium →
 * eSpeak NG) by the file-translation path, with the room's glossaries applied as the agent applies them.
 */
describe('glossaries in the local pipeline, on recorded speech', () => {
  let providers: SpeechProviders;
  const errors: unknown[] = [];
  const run = (glossaries?: RoomGlossaries, simultaneous = false) =>
    translateFile({
      from: 'en',
      to: 'es',
      audio: goForward(),
      providers,
      sampleRate: OUTPUT_SAMPLE_RATE,
      paced: false,
      onError: (e) => errors.push(e),
      glossaries,
      simultaneous: simultaneous ? DEFAULT_CHUNK_POLICY : null,
    });
  const said = (d: FileTranslationDetail) => ({
    text: d.segments.map((s) => s.text),
    translation: d.segments.map((s) => s.translation?.text),
  });
  let plain: FileTranslationDetail;

  beforeAll(async () => {
    providers = localProviders((e) => errors.push(e));
    plain = await run();
  }, 60_000);
  afterAll(async () => {
    await providers.close?.();
    await dispose();
  });
  afterEach(() => expect(errors).toEqual([]));

  it('{en: "forward", es: "adelante"}: the translation says "adelante"', async () => {
    const { segments } = await run(roomGlossaries(1, [{ terms: { en: 'forward', es: 'adelante' } }]));
    expect(segments.map((s) => s.text)).toEqual(['Go forward ten meters']);
    expect(segments[0]!.translation?.text).toMatch(/\badelante\b/);
    expect(segments[0]!.translation?.text).not.toMatch(/de frente/);
  }, 60_000);

  it('{en: "meters", do_not_translate}: "meters" is kept in the translation', async () => {
    const { segments } = await run(roomGlossaries(1, [{ terms: { en: 'meters' }, do_not_translate: true }]));
    expect(segments[0]!.translation?.text).toMatch(/\bdiez meters\b/);
    expect(segments[0]!.translation?.text).not.toMatch(/metros/);
  }, 60_000);

  it.each([
    ['sentence', false],
    ['simultaneous', true],
  ])(
    '{en: "Tenmeter", do_not_translate, sounds_like "ten meters"}: the segment text and its translation say "Tenmeter" (%s mode)',
    async (_mode, simultaneous) => {
      const detail = await run(
        roomGlossaries(1, [{ terms: { en: 'Tenmeter' }, do_not_translate: true, sounds_like: { en: ['ten meters'] } }]),
        simultaneous,
      );
      expect(detail.segments.map((s) => s.text)).toEqual(['Go forward Tenmeter']);
      expect(detail.transcripts.filter((t) => t.final).map((t) => t.text)).toEqual(['Go forward Tenmeter']);
      expect(detail.segments[0]!.translation?.text).toMatch(/\bTenmeter\b/);
      expect(detail.segments[0]!.translation?.text).not.toMatch(/diez|metros/);
    },
    60_000,
  );

  it('an empty RoomGlossaries leaves the output as without any', async () => {
    const empty = await run({ version: 1, directions: [compileGlossary([], 'en', 'es'), compileGlossary([], 'es', 'en')] });
    expect(said(empty)).toEqual(said(plain));
    expect(said(plain).translation[0]).toMatch(/diez metros/);
  }, 60_000);
});

describe('Apertium with glossary terms protected (the real engine, text in)', () => {
  let providers: SpeechProviders;
  beforeAll(() => {
    providers = localProviders();
  });
  afterAll(async () => {
    await providers.close?.();
  });
  const translate = async (text: string, entries: Record<string, unknown>[]) => {
    const holder = new GlossaryHolder(roomGlossaries(1, entries));
    let out = '';
    const glossary = holder.termsIn(text, [['en', 'es']]);
    for await (const delta of providers.translator.translate({
      task: { kind: 'fixed', source: 'en', target: 'es' },
      text,
      context: [],
      glossary,
    }))
      out += delta;
    return out;
  };

  it('a term opening a sentence opens the translation capitalized; the next word keeps its case (Apertium would capitalize it)', async () => {
    expect(await translate('Forward ten meters.', [{ terms: { en: 'forward', es: 'adelante' } }])).toBe('Adelante diez metros.');
    expect(await translate('The car is red. Debian is blue.', [{ terms: { en: 'Debian' }, do_not_translate: true }])).toBe(
      'El coche es rojo. Debian es azul.',
    );
    expect(await translate('iPhone is here.', [{ terms: { en: 'iPhone' }, do_not_translate: true }])).toMatch(
      /^iPhone es aquí\.$|^iPhone está aquí\.$/,
    );
  });

  it('puts back a dozen terms in one utterance, punctuation and possessives around them', async () => {
    const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliett', 'kilo', 'lima'];
    const entries = words.map((w, i) => ({ terms: { en: w, es: `T${i}` } }));
    const out = await translate(`${words.slice(0, 10).join(', ')}; kilo's car and lima.`, entries);
    expect(out.match(/T\d+/g)).toEqual(words.map((_, i) => `T${i}`));
    expect(out).not.toMatch(/zqx/i);
  });
});
