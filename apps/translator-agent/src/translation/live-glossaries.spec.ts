import type { RoomGlossaries } from '@app/contracts';
import { compileGlossary, type GlossaryEntry } from '@app/domain/glossaries';
import { initializeLogger, tokenize, tts } from '@livekit/agents';
import { AudioFrame, dispose } from '@livekit/rtc-node';
import { englishSpanishIn, FakeRoom, recordAudio } from '../../test/support/fake-room';
import { endOfSpeech, final, RecordingLLM, SAMPLE_RATE, ScriptedSTT, SilenceTTS } from '../../test/support/fakes';
import { CAPTION_ATTR } from './captions';
import { RoomTranslator } from './room-translator';
import type { FinalSegment } from './speaker-stream';
import type { SpeechProviders } from './speech-providers';
import { LlmTranslator } from './translator';

initializeLogger({ pretty: false, level: 'error' });

function glossaries(version: number, es: string): RoomGlossaries {
  const entries: GlossaryEntry[] = [{ terms: { en: 'forward', es }, doNotTranslate: false, caseSensitive: false, soundsLike: {} }];
  return { version, directions: [compileGlossary([entries], 'en', 'es'), compileGlossary([entries], 'es', 'en')] };
}

/**
 * A live room's translator told of new glossaries while a speaker talks (scripted recognition and
 * LLM): the next utterance is translated with them; what was said before stays as it was.
 */
describe('RoomTranslator.setGlossaries', () => {
  afterAll(async () => {
    await dispose();
  });

  it('applies a newer version from the next utterance, ignores an older one, and rewrites no stored segment', async () => {
    const stts: ScriptedSTT[] = [];
    const model = new RecordingLLM([
      { input: 'Go forward.', content: 'Ve adelante.' },
      { input: 'Go forward again.', content: 'Ve hacia delante otra vez.' },
    ]);
    const providers: SpeechProviders = {
      label: 'scripted',
      stt: (languages) => {
        const engine = new ScriptedSTT(languages);
        stts.push(engine);
        return engine;
      },
      translator: new LlmTranslator(model, { attempts: 1 }),
      tts: () => new tts.StreamAdapter(new SilenceTTS(), new tokenize.basic.SentenceTokenizer()),
      supports: () => true,
    };
    const room = new FakeRoom();
    const audio = recordAudio();
    const segments: FinalSegment[] = [];
    const errors: unknown[] = [];
    let hangUp: () => void = () => undefined;
    const speaking = new Promise<void>((resolve) => (hangUp = resolve));
    const translator = new RoomTranslator({
      ...englishSpanishIn(room, providers),
      onError: (e) => errors.push(e),
      // The speaker's track stays open until the test hangs up: recognition is scripted.
      listenTo: () => ({
        frames: (async function* () {
          yield new AudioFrame(new Int16Array(SAMPLE_RATE / 100), SAMPLE_RATE, 1, SAMPLE_RATE / 100);
          await speaking;
        })(),
        stop: hangUp,
      }),
      reporter: { segment: async (s) => void segments.push(s) },
      glossaries: glossaries(2, 'adelante'),
    });
    const translated = () => room.texts.filter((t) => t.attributes[CAPTION_ATTR.kind] === 'translation').length;
    const waitFor = async (condition: () => boolean) => {
      for (let i = 0; i < 500 && !condition(); i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    };
    try {
      translator.listen();
      room.speak(room.join('ana', ['en']), 'TR_ana', []);
      await translator.publish();
      await waitFor(() => stts[0]?.streams.length === 1);
      const say = (text: string) => stts[0]!.streams[0]!.say([endOfSpeech, final(text, 'en')]);

      say('Go forward.');
      await waitFor(() => translated() === 1);
      translator.setGlossaries(glossaries(1, 'avance')); // older: ignored
      translator.setGlossaries(glossaries(3, 'hacia delante'));
      say('Go forward again.');
      await waitFor(() => translated() === 2);
      hangUp();
      await translator.settled();
    } finally {
      await translator.close();
      audio.restore();
    }

    const system = model.requests.map((r) => r.messages.find((m) => m.role === 'system')?.text ?? '');
    expect(system[0]).toContain('- "forward" → "adelante"');
    expect(system[1]).toContain('- "forward" → "hacia delante"');
    expect(system[1]).not.toContain('adelante"');
    expect(segments.map((s) => [s.text, s.translation?.text])).toEqual([
      ['Go forward.', 'Ve adelante.'],
      ['Go forward again.', 'Ve hacia delante otra vez.'],
    ]);
    expect(errors).toEqual([]);
  }, 30_000);
});
