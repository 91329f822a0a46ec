import { initializeLogger, stt } from '@livekit/agents';
import type { FinalSegment } from './speaker-stream';
import { endOfSpeech, final, interim, startOfSpeech } from '../../test/support/fakes';
import { backlogOfFour, harness } from '../../test/support/speaker-pipeline-harness';

initializeLogger({ pretty: false, level: 'error' });

describe('SpeakerPipeline: each final segment reported once, with its fate, in spoken order', () => {
  const fate = (segments: FinalSegment[]) => segments.map((s) => [s.segmentId, s.language, s.text, s.translation]);

  it('a translated segment carries its translation; interims are never reported', async () => {
    const h = harness('dual', ['de'], [{ input: 'Guten Morgen.', content: 'Good morning.' }]);
    h.say([startOfSpeech, interim('Guten'), endOfSpeech, final('Guten Morgen.')]);
    await h.finish();
    expect(h.recorded.segments).toEqual([
      {
        speakerIdentity: 'ada',
        trackSid: 'TR_ada',
        segmentId: 'ada-1',
        language: 'de',
        text: 'Guten Morgen.',
        translation: { language: 'en', text: 'Good morning.' },
        // No word times from this recognizer: from its start of speech (t=100) to its end (t=200) on the fake clock.
        startedAt: 100,
        endedAt: 200,
      },
    ]);
  });

  it('merged into a later utterance when behind: the earlier segment is reported without translation, the later one with the combined one', async () => {
    const h = await backlogOfFour();
    expect(fate(h.recorded.segments)).toEqual([
      ['ada-1', 'de', 'Eins.', { language: 'en', text: 'One.' }],
      ['ada-2', 'de', 'Zwei.', { language: 'en', text: 'Two.' }],
      ['ada-3', 'de', 'Drei.', null],
      ['ada-4', 'de', 'Vier.', { language: 'en', text: 'Three. Four.' }],
    ]);
  });

  it('the oldest waiting utterance dropped, or one not translated at all, waits for the earlier segment still being translated', async () => {
    const h = harness(
      'mono',
      ['de', 'en'],
      [
        { input: 'Eins.', content: 'One.', ttft: 300 },
        { input: 'Three.', content: 'Drei.' },
        { input: 'Vier.', content: 'Four.' },
      ],
    );
    h.say([endOfSpeech, final('Eins.', 'de')]);
    await h.waitFor(() => h.model.requests.length === 1);
    // Two waiting (en>de, de>en); French is outside the room (no translation); then a fourth, of another direction than the last: the oldest goes.
    h.say([
      endOfSpeech,
      final('Two.', 'en-US'),
      endOfSpeech,
      final('Bonjour.', 'fr'),
      endOfSpeech,
      final('Vier.', 'de'),
      endOfSpeech,
      final('Three.', 'en'),
    ]);
    // Decided at once, the dropped and the untranslated segments still wait behind the first one's translation.
    await h.waitFor(() => h.recorded.transcripts.filter((t) => t.final).length === 5);
    expect(h.recorded.segments).toEqual([]);
    await h.finish(5);
    expect(fate(h.recorded.segments)).toEqual([
      ['ada-1', 'de', 'Eins.', { language: 'en', text: 'One.' }],
      ['ada-2', 'en', 'Two.', null],
      ['ada-3', 'fr', 'Bonjour.', null],
      ['ada-4', 'de', 'Vier.', { language: 'en', text: 'Four.' }],
      ['ada-5', 'en', 'Three.', { language: 'de', text: 'Drei.' }],
    ]);
  });

  it('failed, untagged or outside the room pair: reported once without translation; the spoken language never empty', async () => {
    const failed = harness('dual', ['de'], [{ input: 'Guten Morgen.', content: 'Good morning.' }], 1);
    failed.model.failNext = 1;
    failed.say([endOfSpeech, final('Guten Morgen.')]);
    await failed.finish();
    expect(fate(failed.recorded.segments)).toEqual([['ada-1', 'de', 'Guten Morgen.', null]]);

    // Mono, no language detected: the model's answer names no target; the speaker's first declared language stands.
    const untagged = harness('mono', ['de', 'en'], [{ input: 'Danke schön.', content: 'Thank you very much.' }]);
    untagged.say([endOfSpeech, final('Danke schön.')]);
    await untagged.finish();
    expect(fate(untagged.recorded.segments)).toEqual([['ada-1', 'de', 'Danke schön.', null]]);

    // Mono, no language detected, tagged answer: the spoken language is the other one than the target.
    const tagged = harness('mono', ['en', 'de'], [{ input: 'Danke schön.', content: 'en|Thank you very much.' }]);
    tagged.say([endOfSpeech, final('Danke schön.')]);
    await tagged.finish();
    expect(fate(tagged.recorded.segments)).toEqual([['ada-1', 'de', 'Danke schön.', { language: 'en', text: 'Thank you very much.' }]]);

    const outside = harness('dual', ['fr'], []);
    outside.say([endOfSpeech, final('Bonjour.')]);
    await outside.finish();
    expect(fate(outside.recorded.segments)).toEqual([['ada-1', 'fr', 'Bonjour.', null]]);

    const undeclared = harness('dual', [], []);
    undeclared.say([endOfSpeech, final('Hallo.')]);
    await undeclared.finish();
    expect(fate(undeclared.recorded.segments)).toEqual([['ada-1', 'de', 'Hallo.', null]]);
  });

  it('with word times, the bounds are where the words were in the track’s audio, from when its audio began', async () => {
    const h = harness('dual', ['de'], [{ input: 'Guten Morgen.', content: 'Good morning.' }]);
    h.hear(2);
    // The first frame (2 s of audio) arrived at t=100 on the fake clock: the audio began at t=-1900.
    h.say([
      { type: stt.SpeechEventType.END_OF_SPEECH, speechEndTime: 1.25 },
      {
        type: stt.SpeechEventType.FINAL_TRANSCRIPT,
        alternatives: [{ text: 'Guten Morgen.', language: '' as stt.SpeechData['language'], startTime: 0.5, endTime: 1.25, confidence: 1 }],
      },
    ]);
    await h.finish();
    expect(h.recorded.segments.map((s) => [s.startedAt, s.endedAt])).toEqual([[-1400, -650]]);
  });

  it('a failing report is an error of its own: captions and speech go on, later segments are still reported', async () => {
    const h = harness(
      'dual',
      ['de'],
      [
        { input: 'Eins.', content: 'One.' },
        { input: 'Zwei.', content: 'Two.' },
      ],
    );
    h.failReports(1);
    h.say([endOfSpeech, final('Eins.'), endOfSpeech, final('Zwei.')]);
    await h.finish(2);
    expect(h.recorded.translations.map((t) => t.text)).toEqual(['One.', 'Two.']);
    expect(fate(h.recorded.segments)).toEqual([['ada-2', 'de', 'Zwei.', { language: 'en', text: 'Two.' }]]);
    expect(h.errors.map(String)).toContain('Error: redis away');
  });
});
