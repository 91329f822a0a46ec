import { routeUtterance, type UtteranceInput } from '@app/domain/translation-routing';
import { TranslationPrompt, translationTaskFor, translationTaskKey } from './translation-task';

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
