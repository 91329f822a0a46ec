import { languageTable, servesLanguage } from '@app/domain/provider-languages';
import { directionLabel } from '@app/domain/translation-routing';
import { REALTIME_MODEL } from './realtime/protocol';
import type { SpeechProviders } from './speech-providers';

/** The pipelines a translator may have configured, in the order they are preferred. */
export type PipelineName = 'realtime' | 'stages' | 'local';

/** What one configured pipeline can translate. */
export interface PipelineCoverage {
  name: PipelineName;
  label: string;
  covers(source: string, target: string): boolean;
  /** Why not, when `covers` says no. */
  whyNot(source: string, target: string): string;
}

/** Which pipeline serves one direction of a room's pair. */
export interface DirectionChoice {
  source: string;
  target: string;
  /** `en>de`. */
  direction: string;
  /** The first configured pipeline that covers the direction; null when none does. */
  pipeline: PipelineName | null;
  /** The pipelines preferred to it that do not cover the direction, and why. */
  passedOver: { pipeline: PipelineName; why: string }[];
}

/** OpenAI's realtime translation: any speech in, out only in the languages its model speaks. */
export function realtimeCoverage(model: string = REALTIME_MODEL): PipelineCoverage {
  const table = languageTable('realtime', 'openai', model);
  return {
    name: 'realtime',
    label: `realtime=${model}`,
    covers: (_source, target) => servesLanguage(table, target),
    whyNot: (_source, target) => `OpenAI's ${model} does not speak "${target}"`,
  };
}

/** A composed pipeline (recognition → translation → synthesis): what each of its stages covers. */
export function stagesCoverage(
  providers: Pick<SpeechProviders, 'label' | 'supports' | 'whyNot'>,
  name: 'stages' | 'local' = 'stages',
): PipelineCoverage {
  return {
    name,
    label: providers.label,
    covers: (source, target) => providers.supports(source, target),
    whyNot: (source, target) => providers.whyNot?.(source, target) || `${providers.label} cannot translate ${source}>${target}`,
  };
}

/** Per direction of the pair: the first pipeline, in `pipelines`' order, that covers it. */
export function planDirections(languages: readonly [string, string], pipelines: readonly PipelineCoverage[]): DirectionChoice[] {
  const [a, b] = languages;
  return [
    [a, b],
    [b, a],
  ].map(([source, target]) => {
    const passedOver: DirectionChoice['passedOver'] = [];
    for (const p of pipelines) {
      if (p.covers(source!, target!))
        return { source: source!, target: target!, direction: directionLabel(source!, target!), pipeline: p.name, passedOver };
      passedOver.push({ pipeline: p.name, why: p.whyNot(source!, target!) });
    }
    return { source: source!, target: target!, direction: directionLabel(source!, target!), pipeline: null, passedOver };
  });
}

/** One sentence for the log and the speaker's status: which pipeline serves the direction instead, and why. */
export function fallbackMessage(choice: DirectionChoice): string {
  const why = choice.passedOver.map((p) => p.why).join('; ');
  const instead =
    choice.pipeline === null ? 'no configured pipeline covers it: not translated' : `translated by the ${choice.pipeline} pipeline instead`;
  return `${choice.direction}: ${why}; ${instead}`;
}

/**
 * The translator's configured pipelines in the order they are preferred: the realtime session when
 * configured; the composed stages unless the realtime session is configured without a fallback; the
 * local pipeline when it runs beside hosted stages.
 */
export function configuredPipelines(options: {
  realtime?: { model?: string; fallback?: boolean } | null;
  providers: Pick<SpeechProviders, 'label' | 'supports' | 'whyNot'>;
  local?: Pick<SpeechProviders, 'label' | 'supports' | 'whyNot'> | null;
}): PipelineCoverage[] {
  const { realtime, providers, local } = options;
  return [
    ...(realtime ? [realtimeCoverage(realtime.model)] : []),
    ...(!realtime || realtime.fallback ? [stagesCoverage(providers)] : []),
    ...(local ? [stagesCoverage(local, 'local')] : []),
  ];
}
