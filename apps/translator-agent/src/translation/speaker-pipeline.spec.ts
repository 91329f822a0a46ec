import { initializeLogger, stt, tokenize, tts, type voice } from '@livekit/agents';
import { AudioFrame } from '@livekit/rtc-node';
import { LatencyTracker } from './latency-tracker';
import { LlmTranslator } from './translator';
import type { PipelineObserver } from '../metrics/agent-metrics';
import { SpeakerPipeline, type SpeakerPipelineOptions } from './speaker-pipeline';
import type { FinalSegment, TranscriptSegment, TranslationOutputs, TranslationSegment } from './speaker-stream';
import type { SpeechProviders } from './speech-providers';
import { endOfSpeech, final, interim, RecordingLLM, SAMPLE_RATE, ScriptedSTT, SilenceTTS, startOfSpeech } from '../../test/support/fakes';

initializeLogger({ pretty: false, level: 'error' });

interface Recorded {
  transcripts: TranscriptSegment[];
  translations: TranslationSegment[];
  audio: Map<string, AudioFrame[]>;
  segments: FinalSegment[];
}

function harness(
  mode: 'mono' | 'dual',
  speakerLanguages: string[],
  responses: voice.testing.FakeLLMResponse[],
  attempts = 1,
  extra: Partial<SpeakerPipelineOptions> = {},
) {
  const stts: ScriptedSTT[] = [];
  const synth = new SilenceTTS();
  const model = new RecordingLLM(responses);
  const synthesis = new tts.StreamAdapter(synth, new tokenize.basic.SentenceTokenizer());
  const providers: SpeechProviders = {
    label: 'scripted',
    stt: (languages) => {
      const engine = new ScriptedSTT(languages);
      stts.push(engine);
      return engine;
    },
    translator: new LlmTranslator(model, { attempts, backoffMs: 1, onError: (error) => errors.push(error) }),
    tts: () => synthesis,
    supports: () => true,
  };
  const errors: unknown[] = [];
  const recorded: Recorded = { transcripts: [], translations: [], audio: new Map(), segments: [] };
  let failingReports = 0;
  const outputs: TranslationOutputs = {
    transcript: async (s) => void recorded.transcripts.push(s),
    translation: async (s) => void recorded.translations.push(s),
    segment: async (s) => {
      if (failingReports > 0) {
        failingReports -= 1;
        throw new Error('redis away');
      }
      recorded.segments.push(s);
    },
    play: async (target, frames) => {
      for await (const frame of frames) recorded.audio.set(target, [...(recorded.audio.get(target) ?? []), frame]);
    },
  };
  let clock = 0;
  const latency = new LatencyTracker();
  const pipeline = new SpeakerPipeline({
    providers,
    mode,
    roomLanguages: ['de', 'en'],
    speaker: { identity: 'ada', languages: speakerLanguages, trackSid: 'TR_ada' },
    segmentPrefix: 'ada',
    outputs,
    latency,
    now: () => (clock += 100),
    onError: (error) => errors.push(error),
    restartDelayMs: 5,
    ...extra,
  });
  const running = pipeline.run();
  const speech = stts[0]?.streams[0];
  if (!speech) throw new Error('the pipeline opened no recognition stream');
  return {
    pipeline,
    stts,
    synth,
    model,
    recorded,
    latency,
    errors,
    /** The next this many segment reports fail (the translator-events queue away). */
    failReports: (count: number) => void (failingReports = count),
    /** What the current recognition stream hears (after a restart, the new one). */
    say: (events: Parameters<typeof speech.say>[0]) => stts[0]!.streams[stts[0]!.streams.length - 1]!.say(events),
    hangUp: () => stts[0]!.streams[stts[0]!.streams.length - 1]!.hangUp(),
    /** The speaker's track delivers this many seconds of audio. */
    hear: (seconds: number) => {
      const samples = Math.round(seconds * SAMPLE_RATE);
      pipeline.pushFrame(new AudioFrame(new Int16Array(samples), SAMPLE_RATE, 1, samples));
    },
    waitFor: async (condition: () => boolean) => {
      const deadline = Date.now() + 5000;
      while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    },
    /** Closes the audio input once recognition delivered `finals` final transcripts, then waits for the speech. */
    finish: async (finals = 1) => {
      const deadline = Date.now() + 5000;
      while (recorded.transcripts.filter((t) => t.final).length < finals && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      pipeline.close();
      await running;
    },
  };
}

const seconds = (frames: AudioFrame[] | undefined) => (frames ?? []).reduce((sum, f) => sum + f.samplesPerChannel / f.sampleRate, 0);

/** An observer that keeps what it is told, as the metrics would count it. */
function observed() {
  const events: string[] = [];
  const observer: PipelineObserver = {
    firstAudio: (source, target) => void events.push(`firstAudio ${source}>${target}`),
    stage: () => undefined,
    utterance: (outcome, reason) => void events.push(`${outcome} ${reason}`),
    recognitionRestart: () => void events.push('restart'),
    providerError: (stage) => void events.push(`error ${stage}`),
  };
  return { events, observer };
}

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
    const h = harness(
      'dual',
      ['de'],
      [
        { input: 'Eins.', content: 'One.', ttft: 300 },
        { input: 'Zwei.', content: 'Two.' },
        { input: 'Drei. Vier.', content: 'Three. Four.' },
      ],
    );
    h.say([endOfSpeech, final('Eins.')]);
    await h.waitFor(() => h.model.requests.length === 1);
    h.say([endOfSpeech, final('Zwei.'), endOfSpeech, final('Drei.'), endOfSpeech, final('Vier.')]);
    await h.finish(4);
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
    const h = harness(
      'dual',
      ['de'],
      [
        { input: 'Eins.', content: 'One.', ttft: 300 },
        { input: 'Zwei.', content: 'Two.' },
        { input: 'Drei. Vier.', content: 'Three. Four.' },
      ],
    );
    h.say([endOfSpeech, final('Eins.')]);
    await h.waitFor(() => h.model.requests.length === 1);
    h.say([endOfSpeech, final('Zwei.'), endOfSpeech, final('Drei.'), endOfSpeech, final('Vier.')]);
    await h.finish(4);
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
