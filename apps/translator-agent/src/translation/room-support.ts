import type { DirectionReport } from './latency-tracker';
import { planDirections, type DirectionChoice, type PipelineCoverage } from './direction-plan';

export interface RoomSupport {
  /** Per direction, the pipeline that serves it (or none). */
  choices: DirectionChoice[];
  /** Directions some configured pipeline translates in this room. */
  served: string[];
  /** Directions none can: utterances in them are captioned, not translated. */
  refused: string[];
  /** One log line naming what is refused and what is served, or null when nothing is refused. */
  line: string | null;
}

/**
 * Which of a room's two directions the configured pipelines can serve, each direction by the first of
 * `pipelines` that covers it (a hosted model: its provider's published languages; a local one: what is installed).
 */
export function roomSupport(languages: readonly [string, string], pipelines: readonly PipelineCoverage[]): RoomSupport {
  const choices = planDirections(languages, pipelines);
  const served = choices.filter((c) => c.pipeline !== null).map((c) => c.direction);
  const refused = choices.filter((c) => c.pipeline === null);
  const reasons = refused.flatMap((c) => c.passedOver.map((p) => p.why)).filter(Boolean);
  const line =
    refused.length === 0
      ? null
      : `translator: the pipeline (${pipelines.map((p) => p.label).join(', then ')}) cannot translate ${refused.map((c) => c.direction).join(' or ')}` +
        (reasons.length > 0 ? ` (${reasons.join('; ')})` : '') +
        `; ${served.length === 0 ? 'leaving the room' : `serving only ${served.join(', ')}`}`;
  return { choices, served, refused: refused.map((c) => c.direction), line };
}

/** The translation-stats entry of a refused direction: reported, with nothing translated. */
export function refusedReport(direction: string): DirectionReport {
  return { direction, p50Ms: 0, p95Ms: 0, samples: 0, audioSeconds: 0 };
}
