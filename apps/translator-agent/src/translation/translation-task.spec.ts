import { compileGlossary, glossaryEntry } from '@app/domain/glossaries';
import { routeUtterance, type UtteranceInput } from '@app/domain/translation-routing';
import { GlossaryHolder } from './room-glossaries';
import { TranslationPrompt, translationDirections, translationTaskFor, translationTaskKey } from './translation-task';

const ROOM = ['de', 'en'] as const;

/** The prompt the pipeline would use for this utterance, routed by the product's own routing. */
function promptFor(input: Omit<UtteranceInput, 'roomLanguages'>): TranslationPrompt {
  const task = translationTaskFor(routeUtterance({ ...input, roomLanguages: ROOM }), ROOM);
  if (!task) throw new Error('this utterance is not translated');
  return new TranslationPrompt(task);
}

/** Role and text of every message of a request, in order. */
function messages(prompt: TranslationPrompt, text: string, context?: { text: string; translation: string }[]) {
  return prompt
    .segmentContext(text, context)
    .items.flatMap((item) => (item.type === 'message' ? [[item.role, item.textContent ?? ''] as const] : []));
}

describe('TranslationPrompt: the LLM request for one segment', () => {
  it.each([
    { speaker: 'de', text: 'Guten Morgen.', from: 'de', into: 'en' },
    { speaker: 'en-GB', text: 'Good morning.', from: 'en', into: 'de' },
  ])('dual, speaker $speaker: the instructions translate $from into $into, then the segment alone', ({ speaker, text, from, into }) => {
    const [system, user, ...rest] = messages(promptFor({ mode: 'dual', speakerLanguages: [speaker] }), text);

    expect(system?.[0]).toBe('system');
    expect(system?.[1]).toContain(`from language "${from}" into language "${into}"`);
    expect(system?.[1]).toContain('translation only');
    expect(user).toEqual(['user', text]);
    expect(rest).toEqual([]);
  });

  it('mono with a detected language: the detected language is the source, the other one the target', () => {
    const prompt = promptFor({ mode: 'mono', speakerLanguages: ROOM, detectedLanguage: 'en-US' });

    expect(prompt.task).toEqual({ kind: 'fixed', source: 'en', target: 'de' });
    expect(prompt.instructions).toContain('from language "en" into language "de"');
  });

  it('mono without a detected language: the model is asked to name the target with a tag', () => {
    const prompt = promptFor({ mode: 'mono', speakerLanguages: ROOM, detectedLanguage: null });

    expect(translationTaskKey(prompt.task)).toBe('detect');
    expect(prompt.instructions).toContain('between language "de" and language "en"');
    expect(prompt.instructions).toContain('Start your answer with the code of the language you translate into and "|"');
    expect(prompt.instructions).not.toContain('from language');
  });

  it('earlier segments come as answered turns between the instructions and the segment', () => {
    const prompt = promptFor({ mode: 'dual', speakerLanguages: ['de'] });

    expect(messages(prompt, 'Wie geht es?', [{ text: 'Guten Morgen.', translation: 'Good morning.' }])).toEqual([
      ['system', prompt.instructions],
      ['user', 'Guten Morgen.'],
      ['assistant', 'Good morning.'],
      ['user', 'Wie geht es?'],
    ]);
  });

  it('is not built for utterances the routing skips', () => {
    expect(translationTaskFor(routeUtterance({ mode: 'dual', roomLanguages: ROOM, speakerLanguages: ['fr'] }), ROOM)).toBeNull();
    expect(
      translationTaskFor(routeUtterance({ mode: 'mono', roomLanguages: ROOM, speakerLanguages: ROOM, detectedLanguage: 'fr' }), ROOM),
    ).toBeNull();
  });
});

describe("TranslationPrompt with the room's glossary", () => {
  const entry = glossaryEntry;
  // A 10,000-entry glossary: only what the segment holds may reach the prompt.
  const filler = Array.from({ length: 10_000 }, (_, i) => entry({ de: `Fachwort${i}`, en: `term${i}` }));
  const glossary = [
    entry({ de: 'Schraube', en: 'bolt' }),
    entry({ de: 'Debian' }, { doNotTranslate: true }),
    entry({ de: 'Mutter' }), // no English term: left to normal translation
    ...filler,
  ];
  const holder = new GlossaryHolder({
    version: 1,
    directions: [compileGlossary([glossary], 'de', 'en'), compileGlossary([glossary], 'en', 'de')],
  });
  const systemOf = (prompt: TranslationPrompt, text: string) =>
    prompt.segmentContext(text, [], holder.termsIn(text, translationDirections(prompt.task))).items[0]!;

  it('lists only the entries whose terms the segment holds, each once: a B term to use, or a term kept as written', () => {
    const prompt = promptFor({ mode: 'dual', speakerLanguages: ['de'] });
    const system = systemOf(prompt, 'Die Schraube und die Mutter unter Debian, noch eine Schraube.');
    const text = system.type === 'message' ? (system.textContent ?? '') : '';
    expect(text.startsWith(prompt.instructions)).toBe(true);
    const glossaryPart = text.slice(prompt.instructions.length).trim();
    expect(glossaryPart.split('\n')).toEqual([
      'Glossary: translate these terms exactly as given here, whatever the context.',
      '- "Schraube" → "bolt"',
      '- "Debian": keep it as written, untranslated',
    ]);
  });

  it('adds nothing when the segment holds no term', () => {
    const prompt = promptFor({ mode: 'dual', speakerLanguages: ['de'] });
    const system = systemOf(prompt, 'Guten Morgen.');
    expect(system.type === 'message' && system.textContent).toBe(prompt.instructions);
  });

  it('without a known direction (mono, undetected), lists each direction it may translate in under its own heading', () => {
    const prompt = promptFor({ mode: 'mono', speakerLanguages: ROOM, detectedLanguage: null });
    const system = systemOf(prompt, 'Schraube or bolt?');
    const text = system.type === 'message' ? (system.textContent ?? '') : '';
    expect(text).toContain('When translating from de into en:\n- "Schraube" → "bolt"');
    expect(text).toContain('When translating from en into de:\n- "bolt" → "Schraube"');
  });
});
