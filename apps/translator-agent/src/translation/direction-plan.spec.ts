import { LatencyTracker } from './latency-tracker';
import {
  configuredPipelines,
  fallbackMessage,
  planDirections,
  realtimeCoverage,
  stagesCoverage,
  type PipelineName,
} from './direction-plan';
import { SpeakerDispatch } from './speaker-dispatch';
import { UntranslatedStream } from './speaker-stream';
import type { SpeechProviders } from './speech-providers';

/** Stages that cover exactly the listed directions (`en>nl`). */
function stages(label: string, directions: string[]): SpeechProviders {
  return {
    label,
    stt: () => {
      throw new Error('not started in these tests');
    },
    translator: { label, translate: async function* () {} },
    tts: () => {
      throw new Error('not started in these tests');
    },
    supports: (source, target) => directions.includes(`${source}>${target}`),
    whyNot: (source, target) => `${label} has no ${source}>${target}`,
  };
}

describe('planDirections: per direction, the first configured pipeline that covers it', () => {
  const hosted = stages('hosted', ['en>nl', 'nl>en', 'en>am']);
  const local = stages('local', ['en>es', 'en>ca']);

  it.each<[string, [string, string], { realtime?: boolean; fallback?: boolean; local?: boolean }, (PipelineName | null)[]]>([
    ['both ends spoken by realtime', ['es', 'en'], { realtime: true, fallback: true }, ['realtime', 'realtime']],
    [
      'nl is not spoken by realtime: en>nl falls back to the stages',
      ['nl', 'en'],
      { realtime: true, fallback: true },
      ['realtime', 'stages'],
    ],
    ['no fallback configured: en>nl is served by nothing', ['nl', 'en'], { realtime: true, fallback: false }, ['realtime', null]],
    ['the stages alone', ['nl', 'en'], {}, ['stages', 'stages']],
    ['what the stages miss, the local pipeline serves when it covers it', ['en', 'ca'], { local: true }, ['local', null]],
    [
      'am is spoken by neither realtime nor local: the stages serve en>am',
      ['en', 'am'],
      { realtime: true, fallback: true, local: true },
      ['stages', 'realtime'],
    ],
  ])('%s', (_name, languages, setup, expected) => {
    const pipelines = configuredPipelines({
      realtime: setup.realtime ? { fallback: setup.fallback ?? false } : null,
      providers: hosted,
      local: setup.local ? local : null,
    });
    expect(planDirections(languages, pipelines).map((c) => c.pipeline)).toEqual(expected);
  });

  it('says which pipelines were passed over and why, in one sentence', () => {
    const [, enNl] = planDirections(['nl', 'en'], [realtimeCoverage(), stagesCoverage(hosted)]);
    expect(enNl).toMatchObject({ direction: 'en>nl', pipeline: 'stages', passedOver: [{ pipeline: 'realtime' }] });
    expect(fallbackMessage(enNl!)).toBe(
      `en>nl: OpenAI's gpt-realtime-translate does not speak "nl"; translated by the stages pipeline instead`,
    );
    const [, nowhere] = planDirections(['zu', 'en'], [realtimeCoverage(), stagesCoverage(hosted)]);
    expect(fallbackMessage(nowhere!)).toBe(
      `en>zu: OpenAI's gpt-realtime-translate does not speak "zu"; hosted has no en>zu; no configured pipeline covers it: not translated`,
    );
  });

  it('a realtime model without a language table is taken to speak every language', () => {
    expect(realtimeCoverage('gpt-realtime-translate-next').covers('en', 'nl')).toBe(true);
  });
});

describe('SpeakerDispatch', () => {
  it('a speaker whose direction no configured pipeline covers, with no stages to caption them, is untranslated and told so', () => {
    const dispatch = new SpeakerDispatch({
      languages: ['nl', 'en'],
      providers: stages('hosted', ['en>nl', 'nl>en']),
      realtime: { baseUrl: 'ws://127.0.0.1:9', apiKey: 'sk', inputTranscriptionModel: null, fallback: false },
    });
    const { stream, status } = dispatch.stream(
      {
        mode: 'dual',
        roomLanguages: ['nl', 'en'],
        speaker: { identity: 'beto', languages: ['en'], trackSid: 'TR_beto' },
        segmentPrefix: 'p',
        outputs: { transcript: async () => undefined, translation: async () => undefined, play: async () => undefined },
        latency: new LatencyTracker(),
      },
      () => undefined,
    );
    expect(stream).toBeInstanceOf(UntranslatedStream);
    expect(status).toEqual({
      speakerIdentity: 'beto',
      trackSid: 'TR_beto',
      state: 'unavailable',
      reason: 'unsupported_language',
      message: `en>nl: OpenAI's gpt-realtime-translate does not speak "nl"; no configured pipeline covers it: not translated`,
    });
  });
});
