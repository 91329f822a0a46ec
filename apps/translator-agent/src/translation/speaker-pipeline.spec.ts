import { initializeLogger, stt, voice } from '@livekit/agents';
import { segmentReport } from '../events/translator-events';
import { endOfSpeech, final, interim, SAMPLE_RATE, startOfSpeech } from '../../test/support/fakes';
import { backlogOfFour, harness, observed, seconds } from '../../test/support/speaker-pipeline-harness';

initializeLogger({ pretty: false, level: 'error' });

describe('SpeakerPipeline beyond the worker capacity and behind real time', () => {
  it('captions only: the translation is a caption and nothing is spoken, until the stream is given full service', async () => {
    const { events, observer } = observed();
    const h = harness(
      'dual',
      ['de'],
      [
        { input: 'Eins.', content: 'One.' },
        { input: 'Zwei.', content: 'Two.' },
      ],
      1,
      { service: 'captions', observer },
    );
    h.say([startOfSpeech, endOfSpeech, final('Eins.')]);
    await h.waitFor(() => h.recorded.translations.length === 1);
    expect(h.recorded.audio.size).toBe(0);
    h.pipeline.setService('full');
    h.say([startOfSpeech, endOfSpeech, final('Zwei.')]);
    await h.finish(2);
    expect(h.recorded.translations.map((t) => t.text)).toEqual(['One.', 'Two.']);
    expect(seconds(h.recorded.audio.get('en'))).toBeCloseTo('Two.'.length / 100, 5);
    expect(events).toEqual(['dropped captions_only', 'firstAudio de>en']);
  });

  it('speech that would start later than the bound after its utterance ended is not spoken; its caption is sent', async () => {
    const { events, observer } = observed();
    // The fake clock moves 100 ms per reading: the first audio comes 100 ms after the end of speech.
    const h = harness('dual', ['de'], [{ input: 'Guten Morgen.', content: 'Good morning.' }], 1, { maxSpeechDelayMs: 50, observer });
    h.say([startOfSpeech, endOfSpeech, final('Guten Morgen.')]);
    await h.finish();
    expect(h.recorded.translations.map((t) => t.text)).toEqual(['Good morning.']);
    expect(h.recorded.audio.get('en') ?? []).toEqual([]);
    expect(h.latency.drain()).toEqual([]);
    expect(events).toEqual(['dropped late']);
  });
});

describe('SpeakerPipeline with deterministic local providers', () => {
  it('dual: a German speaker is transcribed, translated into English and spoken on the English track', async () => {
    const h = harness('dual', ['de'], [{ input: 'Guten Morgen.', content: 'Good morning.' }]);
    expect(h.stts[0]?.languages).toEqual(['de']);
    h.say([startOfSpeech, interim('Guten'), endOfSpeech, final('Guten Morgen.')]);
    await h.finish();
    expect(h.recorded.transcripts).toEqual([
      { speakerIdentity: 'ada', trackSid: 'TR_ada', segmentId: 'ada-1', language: null, text: 'Guten', final: false },
      { speakerIdentity: 'ada', trackSid: 'TR_ada', segmentId: 'ada-1', language: 'de', text: 'Guten Morgen.', final: true },
    ]);
    expect(h.recorded.translations).toEqual([
      { speakerIdentity: 'ada', trackSid: 'TR_ada', segmentId: 'ada-1', source: 'de', target: 'en', text: 'Good morning.' },
    ]);
    expect([...h.recorded.audio.keys()]).toEqual(['en']);
    expect(seconds(h.recorded.audio.get('en'))).toBeCloseTo('Good morning.'.length / 100, 5);
    expect(h.recorded.audio.get('en')?.[0]?.sampleRate).toBe(SAMPLE_RATE);
    // End of speech at t=100, first translated audio at t=200 on the fake clock.
    expect(h.latency.drain()).toEqual([{ direction: 'de>en', p50Ms: 100, p95Ms: 100, samples: 1, audioSeconds: 0.13 }]);
    // The LLM step is the TranslationPrompt's: its instructions, then the segment alone.
    expect(h.model.requests.map((r) => r.messages.map((m) => [m.role, m.text]))).toEqual([
      [
        ['system', expect.stringContaining('from language "de" into language "en"')],
        ['user', 'Guten Morgen.'],
      ],
    ]);
    expect(h.errors).toEqual([]);
  });

  it('synthesis starts per sentence of the streamed translation, not per turn', async () => {
    const h = harness(
      'dual',
      ['en'],
      [{ input: 'Hello there. How are you today?', content: 'Hallo zusammen, schön euch alle zu sehen. Wie geht es euch heute Abend?' }],
    );
    h.say([endOfSpeech, final('Hello there. How are you today?')]);
    await h.finish();
    expect(h.synth.sentences).toEqual(['Hallo zusammen, schön euch alle zu sehen.', 'Wie geht es euch heute Abend?']);
    expect([...h.recorded.audio.keys()]).toEqual(['de']);
  });

  it('mono: the detected language decides the direction of each utterance', async () => {
    const h = harness(
      'mono',
      ['de', 'en'],
      [
        { input: 'Where is the station?', content: 'Wo ist der Bahnhof?' },
        { input: 'Gleich um die Ecke.', content: 'Just around the corner.' },
      ],
    );
    expect(h.stts[0]?.languages).toEqual(['de', 'en']);
    h.say([endOfSpeech, final('Where is the station?', 'en-US'), endOfSpeech, final('Gleich um die Ecke.', 'de')]);
    await h.finish(2);
    expect(h.recorded.translations.map((t) => [t.source, t.target, t.text])).toEqual([
      ['en', 'de', 'Wo ist der Bahnhof?'],
      ['de', 'en', 'Just around the corner.'],
    ]);
    expect(h.latency.drain().map((r) => r.direction)).toEqual(['de>en', 'en>de']);
    expect(h.model.requests.map((r) => r.messages[0]?.text)).toEqual([
      expect.stringContaining('from language "en" into language "de"'),
      expect.stringContaining('from language "de" into language "en"'),
    ]);
  });

  it('mono without a detected language: the model names the target and the audio goes to that track', async () => {
    const h = harness('mono', ['de', 'en'], [{ input: 'Danke schön.', content: 'en|Thank you very much.' }]);
    h.say([endOfSpeech, final('Danke schön.')]);
    await h.finish();
    expect(h.recorded.translations).toEqual([
      { speakerIdentity: 'ada', trackSid: 'TR_ada', segmentId: 'ada-1', source: 'de', target: 'en', text: 'Thank you very much.' },
    ]);
    expect([...h.recorded.audio.keys()]).toEqual(['en']);
    expect(h.synth.sentences).toEqual(['Thank you very much.']);
    expect(h.model.requests[0]?.messages[0]?.text).toContain('between language "de" and language "en"');
  });

  it('a dual speaker outside the room pair is captioned but not translated', async () => {
    const h = harness('dual', ['fr'], [{ input: 'Bonjour.', content: 'Hello.' }]);
    h.say([endOfSpeech, final('Bonjour.')]);
    await h.finish();
    expect(h.recorded.transcripts).toHaveLength(1);
    expect(h.recorded.translations).toEqual([]);
    expect(h.recorded.audio.size).toBe(0);
    expect(h.synth.sentences).toEqual([]);
    expect(h.model.requests).toEqual([]);
  });

  it('a failed or empty LLM answer is retried; the speaker hears the translation once and no empty caption is sent', async () => {
    const h = harness('dual', ['de'], [{ input: 'Guten Morgen.', content: 'Good morning.' }], 3);
    h.model.failNext = 1;
    h.say([endOfSpeech, final('Guten Morgen.')]);
    await h.finish();
    expect(h.model.requests).toHaveLength(2);
    expect(h.recorded.translations.map((t) => t.text)).toEqual(['Good morning.']);
    expect(h.synth.sentences).toEqual(['Good morning.']);
  });

  it('when every attempt fails, nothing is said or captioned for the segment, and the failure is reported', async () => {
    const h = harness('dual', ['de'], [{ input: 'Guten Morgen.', content: 'Good morning.' }], 2);
    h.model.failNext = 2;
    h.say([endOfSpeech, final('Guten Morgen.')]);
    await h.finish();
    expect(h.recorded.translations).toEqual([]);
    expect(h.recorded.audio.size).toBe(0);
    expect(h.errors.map(String).join('\n')).toContain('no translation after 2 attempts');
  });

  it('when recognition’s stream ends, it is opened again and the speaker keeps being translated', async () => {
    const h = harness(
      'dual',
      ['de'],
      [
        { input: 'Eins.', content: 'One.' },
        { input: 'Zwei.', content: 'Two.' },
      ],
    );
    h.say([endOfSpeech, final('Eins.')]);
    await h.waitFor(() => h.recorded.translations.length === 1);
    h.hangUp();
    await h.waitFor(() => (h.stts[0]?.streams.length ?? 0) === 2);
    expect(h.stts[0]?.streams).toHaveLength(2);
    h.say([endOfSpeech, final('Zwei.')]);
    await h.finish(2);
    expect(h.recorded.translations.map((t) => t.text)).toEqual(['One.', 'Two.']);
    expect(h.errors.map(String).join('\n')).toContain('restarting');
  });

  it('a backlog is capped: utterances past the waiting limit are merged and translated as one', async () => {
    const h = await backlogOfFour();
    expect(h.model.requests.map((r) => r.messages[r.messages.length - 1]?.text)).toEqual(['Eins.', 'Zwei.', 'Drei. Vier.']);
    expect(h.recorded.translations.map((t) => [t.segmentId, t.text])).toEqual([
      ['ada-1', 'One.'],
      ['ada-2', 'Two.'],
      ['ada-4', 'Three. Four.'],
    ]);
  });

  it('each segment is translated with the speaker’s previous segments and their translations as context', async () => {
    const h = harness(
      'dual',
      ['de'],
      [
        { input: 'Ich gehe', content: 'I am going' },
        { input: 'nach Hause.', content: 'home.' },
      ],
    );
    h.say([endOfSpeech, final('Ich gehe'), endOfSpeech, final('nach Hause.')]);
    await h.finish(2);
    expect(h.model.requests[1]?.messages.map((m) => [m.role, m.text])).toEqual([
      ['system', expect.stringContaining('into language "en"')],
      ['user', 'Ich gehe'],
      ['assistant', 'I am going'],
      ['user', 'nach Hause.'],
    ]);
  });

  it('latency counts from where the recognizer says the speech ended, not from when it said so', async () => {
    const h = harness('dual', ['de'], [{ input: 'Guten Morgen.', content: 'Good morning.' }]);
    h.hear(1);
    // PocketSphinx reports the end after its trailing silence: the words ended 0.6 s before the audio so far.
    h.say([{ type: stt.SpeechEventType.END_OF_SPEECH, speechEndTime: 0.4 }, final('Guten Morgen.')]);
    await h.finish();
    // Told at t=100 on the fake clock, so the speech ended at t=-500; first audio at t=200.
    expect(h.latency.drain()).toEqual([expect.objectContaining({ direction: 'de>en', p50Ms: 700, samples: 1 })]);
  });
});

describe('SpeakerPipeline in simultaneous mode: words the final recognition did not keep', () => {
  /** A partial hypothesis with word times: `"eins@0.1-0.4 zwei@0.5-0.8"`, decoded up to `at` seconds. */
  const hypothesis = (spec: string, at: number): stt.SpeechEvent => {
    const tokens = spec.split(' ').map((token) => token.split('@') as [string, string]);
    const words = tokens.map(([text, times]) => {
      const [start, end] = times.split('-').map(Number);
      return voice.createTimedString({ text, startTime: start!, endTime: end! });
    });
    const text = tokens.map(([word]) => word).join(' ');
    return {
      type: stt.SpeechEventType.INTERIM_TRANSCRIPT,
      alternatives: [{ text, language: 'de' as stt.SpeechData['language'], startTime: 0, endTime: at, confidence: 0.5, words }],
    };
  };
  /** The final recognition, cased at its start as the local recognizer writes it. */
  const finalWith = (spec: string): stt.SpeechEvent => {
    const alt = hypothesis(spec, 0).alternatives![0]!;
    const text = alt.text[0]!.toUpperCase() + alt.text.slice(1);
    return { type: stt.SpeechEventType.FINAL_TRANSCRIPT, alternatives: [{ ...alt, text, confidence: 1 }] };
  };
  const POLICY = { pauseSeconds: 0.15, waitSeconds: 1.5, maxChunkSeconds: 2, agreement: 2, frontierSeconds: 0 };

  it('says in the segment and in the metrics which words were translated before the final recognition changed them', async () => {
    const revised: string[] = [];
    const { observer } = observed();
    observer.revisedWords = (source, target, count) => void revised.push(`${source}>${target} ${count}`);
    const h = harness(
      'dual',
      ['de'],
      [
        { input: 'Eins zwei', content: 'One two' },
        { input: 'vier', content: 'four' },
      ],
      1,
      { simultaneous: POLICY, observer },
    );
    // Two hypotheses agree on "eins zwei" and a pause follows: it is translated while the speaker goes on.
    h.say([startOfSpeech, hypothesis('eins@0.1-0.4 zwei@0.5-0.8', 1.0), hypothesis('eins@0.1-0.4 zwei@0.5-0.8', 1.1)]);
    await h.waitFor(() => h.recorded.translations.length === 1);
    // The final recognition heard "drei" where "zwei" was translated, and "vier" after it.
    h.say([endOfSpeech, finalWith('eins@0.1-0.4 drei@0.5-0.8 vier@1.2-1.5')]);
    await h.finish();
    expect(h.recorded.segments).toEqual([
      expect.objectContaining({
        text: 'Eins drei vier',
        translation: { language: 'en', text: 'One two four' },
        committed: { text: 'Eins zwei vier', revisedWords: ['zwei'], revised: true },
      }),
    ]);
    expect(revised).toEqual(['de>en 1']);
    // The report the API stores says it too: the words heard translated and the one the transcript does not keep.
    const report = segmentReport({ roomId: 'room-1', livekitRoom: 'lk-room-1' }, h.recorded.segments[0]!, new Date(0));
    expect(report).toEqual(
      expect.objectContaining({ text: 'Eins drei vier', committed: { text: 'Eins zwei vier', revisedWords: ['zwei'] } }),
    );
  });

  it('marks a segment whose translated words the final recognition all kept as not revised, and counts nothing', async () => {
    const revised: string[] = [];
    const { observer } = observed();
    observer.revisedWords = (source, target, count) => void revised.push(`${source}>${target} ${count}`);
    const h = harness(
      'dual',
      ['de'],
      [
        { input: 'Eins zwei', content: 'One two' },
        { input: 'drei', content: 'three' },
      ],
      1,
      { simultaneous: POLICY, observer },
    );
    h.say([startOfSpeech, hypothesis('eins@0.1-0.4 zwei@0.5-0.8', 1.0), hypothesis('eins@0.1-0.4 zwei@0.5-0.8', 1.1)]);
    await h.waitFor(() => h.recorded.translations.length === 1);
    h.say([endOfSpeech, finalWith('eins@0.1-0.4 zwei@0.5-0.8 drei@1.2-1.5')]);
    await h.finish();
    expect(h.recorded.segments).toEqual([
      expect.objectContaining({
        text: 'Eins zwei drei',
        translation: { language: 'en', text: 'One two three' },
        committed: { text: 'Eins zwei drei', revisedWords: [], revised: false },
      }),
    ]);
    expect(revised).toEqual([]);
  });

  it('in sentence mode a segment carries no committed words: what was translated is its text', async () => {
    const h = harness('dual', ['de'], [{ input: 'Eins zwei.', content: 'One two.' }]);
    h.say([startOfSpeech, endOfSpeech, final('Eins zwei.')]);
    await h.finish();
    expect(h.recorded.segments).toHaveLength(1);
    expect(h.recorded.segments[0]).not.toHaveProperty('committed');
    expect(segmentReport({ roomId: 'room-1', livekitRoom: 'lk-room-1' }, h.recorded.segments[0]!)).not.toHaveProperty('committed');
  });
});
