/**
 * A \`SpeakerPipeline\` with scripted recognition, a scripted LLM behind \`LlmTranslator\` and silent
 * synthesis, on a fake clock that moves 100 ms per reading: what a spec says to it and what it did.
 */
import { tokenize, tts, type voice } from '@livekit/agents';
import { AudioFrame } from '@livekit/rtc-node';
import type { PipelineObserver } from '../../src/metrics/agent-metrics';
import { LatencyTracker } from '../../src/translation/latency-tracker';
import { SpeakerPipeline, type SpeakerPipelineOptions } from '../../src/translation/speaker-pipeline';
import type { FinalSegment, TranscriptSegment, TranslationOutputs, TranslationSegment } from '../../src/translation/speaker-stream';
import type { SpeechProviders } from '../../src/translation/speech-providers';
import { LlmTranslator } from '../../src/translation/translator';
import { endOfSpeech, final, RecordingLLM, SAMPLE_RATE, ScriptedSTT, SilenceTTS } from './fakes';

export interface Recorded {
  transcripts: TranscriptSegment[];
  translations: TranslationSegment[];
  audio: Map<string, AudioFrame[]>;
  segments: FinalSegment[];
}

export function harness(
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

export const seconds = (frames: AudioFrame[] | undefined) => (frames ?? []).reduce((sum, f) => sum + f.samplesPerChannel / f.sampleRate, 0);

/** An observer that keeps what it is told, as the metrics would count it. */
export function observed() {
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

/**
 * A German speaker says four utterances while the first is slow to translate: past the waiting cap,
 * the last two are merged into one translation. Resolves once all four were heard and spoken.
 */
export async function backlogOfFour() {
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
  return h;
}
