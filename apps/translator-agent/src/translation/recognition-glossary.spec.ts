import type { RoomGlossaries } from '@app/contracts';
import { compileGlossary, glossaryEntry, type GlossaryEntry } from '@app/domain/glossaries';
import { initializeLogger } from '@livekit/agents';
import { endOfSpeech, final, interim, ScriptedSTT, startOfSpeech } from '../../test/support/fakes';
import { harness } from '../../test/support/speaker-pipeline-harness';
import { RecognitionGlossary } from './recognition-glossary';
import { GlossaryHolder, type Keyterm } from './room-glossaries';

initializeLogger({ pretty: false, level: 'error' });

const entry = glossaryEntry;

function room(version: number, entries: GlossaryEntry[]): RoomGlossaries {
  return { version, directions: [compileGlossary([entries], 'de', 'en'), compileGlossary([entries], 'en', 'de')] };
}

describe("the room's glossary in recognition", () => {
  it('a recognizer that takes a vocabulary gets the terms of the languages it hears, by priority, again at every change', () => {
    const given: string[][] = [];
    const engine = Object.assign(new ScriptedSTT(['de', 'en']), {
      setVocabulary: (keyterms: readonly Keyterm[]) => void given.push(keyterms.map((k) => k.text)),
    });
    const holder = new GlossaryHolder(room(1, [entry({ de: 'Schraube', en: 'bolt' }, { soundsLike: { de: ['Schrau be'] } })]));
    const recognition = new RecognitionGlossary(engine, ['de', 'en'], ['de', 'en'], holder);
    holder.set(room(2, [entry({ en: 'Tenmeter' }, { doNotTranslate: true })]));
    recognition.close();
    holder.set(room(3, []));
    expect(given).toEqual([['Schraube', 'bolt', 'Schrau be'], ['Tenmeter']]);
  });

  it('a recognizer without one: a heard sounds_like phrase is the term in the captions, the segment and what is translated', async () => {
    const holder = new GlossaryHolder(room(1, [entry({ de: 'Tenmeter' }, { doNotTranslate: true, soundsLike: { de: ['zehn Meter'] } })]));
    const h = harness('dual', ['de'], [{ input: 'Ich nutze Tenmeter.', content: 'I use Tenmeter.' }], 1, { glossaries: holder });
    h.say([startOfSpeech, interim('Ich nutze zehn meter'), endOfSpeech, final('Ich nutze zehn Meter.')]);
    await h.finish();
    expect(h.recorded.transcripts.map((t) => t.text)).toEqual(['Ich nutze Tenmeter', 'Ich nutze Tenmeter.']);
    expect(h.recorded.segments.map((s) => [s.text, s.translation?.text])).toEqual([['Ich nutze Tenmeter.', 'I use Tenmeter.']]);
    const request = h.model.requests[0]!.messages;
    expect(request.at(-1)).toEqual({ role: 'user', text: 'Ich nutze Tenmeter.' });
    expect(request[0]!.text).toContain('- "Tenmeter": keep it as written, untranslated');
  });
});
