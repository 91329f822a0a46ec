import { directionLabel } from '@app/domain/translation-routing';
import type { DirectionReport } from './latency-tracker';
import type { SpeechProviders } from './speech-providers';

export interface RoomSupport {
  /** Directions the pipeline translates in this room. */
  served: string[];
  /** Directions it cannot: utterances in them are captioned, not translated. */
  refused: string[];
  /** One log line naming what is refused and what the pipeline serves, or null when nothing is. */
  line: string | null;
}

/**
 * Which of a room's two directions the configured pipeline can serve (a local one: what is installed).
 * With a hosted speech-to-speech session that can open (`realtime`: a key is configured), every direction
 * is served: the session translates any pair, and a speaker its fallback stages cannot translate is captioned.
 */
export function roomSupport(
  languages: readonly [string, string],
  providers: Pick<SpeechProviders, 'label' | 'supports' | 'whyNot'>,
  realtime = false,
): RoomSupport {
  if (realtime)
    return { served: [directionLabel(languages[0], languages[1]), directionLabel(languages[1], languages[0])], refused: [], line: null };
  const [a, b] = languages;
  const served: string[] = [];
  const refused: string[] = [];
  const reasons: string[] = [];
  for (const [source, target] of [
    [a, b],
    [b, a],
  ] as const) {
    const ok = providers.supports(source, target);
    (ok ? served : refused).push(directionLabel(source, target));
    const why = ok ? '' : providers.whyNot?.(source, target);
    if (why) reasons.push(why);
  }
  const line =
    refused.length === 0
      ? null
      : `translator: the pipeline (${providers.label}) cannot translate ${refused.join(' or ')}` +
        (reasons.length > 0 ? ` (${reasons.join('; ')})` : '') +
        `; ${served.length === 0 ? 'leaving the room' : `serving only ${served.join(', ')}`}`;
  return { served, refused, line };
}

/** The translation-stats entry of a refused direction: reported, with nothing translated. */
export function refusedReport(direction: string): DirectionReport {
  return { direction, p50Ms: 0, p95Ms: 0, samples: 0, audioSeconds: 0 };
}
