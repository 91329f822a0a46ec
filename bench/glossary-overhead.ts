// The glossary row of the translator bench: what a room's 10,000-entry glossary adds to translating an
// utterance on the local pipeline, against no glossary. Each pass translates the recognized text of
// Debian's recordings (cased as PocketSphinx's text is) along the agent's path: the sounds_like
// replacement of what was heard, the matching of the direction's terms, then Apertium with the
// matched terms protected. Passes alternate between the two rooms, so both see the same load.
import type { RoomGlossaries } from '@app/contracts';
import { compileGlossary, glossaryEntry, type GlossaryEntry } from '@app/domain/glossaries';
import { performance } from 'node:perf_hooks';
import { librivoxClips } from '../apps/translator-agent/test/support/local-speech';
import { restoreCasing } from '../apps/translator-agent/src/translation/casing';
import { GlossaryHolder } from '../apps/translator-agent/src/translation/room-glossaries';
import type { SpeechProviders } from '../apps/translator-agent/src/translation/speech-providers';

export const GLOSSARY_ADDED_P95_MS = 5;

export interface GlossaryOverhead {
  entries: number;
  utterances: number;
  /** Preparing the room's glossaries once per version (both directions). */
  prepareMs: number;
  none: { p50: number; p95: number };
  withGlossary: { p50: number; p95: number };
  /** The glossary's own steps per utterance (replacement and matching), timed alone. */
  glossaryStepsP95: number;
  addedP95: number;
  pass: boolean;
}

const COMMON = ['the', 'a', 'he', 'young', 'go', 'more', 'made', 'to', 'be', 'his'];

/** 10,000 entries: a few that the recordings hold, the rest multi-word terms starting with their common words. */
function tenThousandEntries(): GlossaryEntry[] {
  const entry = glossaryEntry;
  const heard = [
    entry({ en: 'young man', es: 'muchacho' }),
    entry({ en: 'forward', es: 'adelante' }),
    entry({ en: 'Dashwood' }, { doNotTranslate: true, soundsLike: { en: ['dash wood'] } }),
    entry({ en: 'Tenmeter' }, { doNotTranslate: true, soundsLike: { en: ['ten meters'] } }),
  ];
  const rest = Array.from({ length: 10_000 - heard.length }, (_, i) =>
    entry(
      { en: `${COMMON[i % COMMON.length]} widget ${i}`, es: `artilugio ${i}` },
      { soundsLike: { en: [`${COMMON[i % COMMON.length]} wid get ${i}`] } },
    ),
  );
  return [...heard, ...rest];
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

const round2 = (ms: number) => Math.round(ms * 100) / 100;

export async function glossaryOverhead(providers: SpeechProviders, rounds: number): Promise<GlossaryOverhead> {
  const entries = tenThousandEntries();
  const preparing = performance.now();
  const room: RoomGlossaries = { version: 1, directions: [compileGlossary([entries], 'en', 'es'), compileGlossary([entries], 'es', 'en')] };
  const withGlossary = new GlossaryHolder(room);
  const prepareMs = performance.now() - preparing;
  const none = new GlossaryHolder();
  const texts = [...librivoxClips().map((clip) => clip.reference), 'go forward ten meters'].map((text) => restoreCasing(text));
  const task = { kind: 'fixed', source: 'en', target: 'es' } as const;

  const translate = async (holder: GlossaryHolder, heard: string) => {
    const text = holder.direction('en', 'es')?.replaceSoundsLike(heard) ?? heard;
    const glossary = holder.termsIn(text, [['en', 'es']]);
    let out = '';
    for await (const delta of providers.translator.translate({ task, text, context: [], glossary })) out += delta;
    return out;
  };
  for (const text of texts) await translate(withGlossary, text); // warm-up: Apertium's pipeline started and loaded
  const times = { none: [] as number[], with: [] as number[], steps: [] as number[] };
  for (let pass = 0; pass < rounds; pass += 1) {
    for (const text of texts) {
      for (const [holder, into] of pass % 2 === 0
        ? ([
            [none, times.none],
            [withGlossary, times.with],
          ] as const)
        : ([
            [withGlossary, times.with],
            [none, times.none],
          ] as const)) {
        const startedAt = performance.now();
        await translate(holder, text);
        into.push(performance.now() - startedAt);
      }
      const stepsAt = performance.now();
      withGlossary.termsIn(withGlossary.direction('en', 'es')!.replaceSoundsLike(text), [['en', 'es']]);
      times.steps.push(performance.now() - stepsAt);
    }
  }
  const summary = (values: number[]) => ({ p50: round2(percentile(values, 50)), p95: round2(percentile(values, 95)) });
  const result = { none: summary(times.none), withGlossary: summary(times.with) };
  const addedP95 = round2(result.withGlossary.p95 - result.none.p95);
  return {
    entries: entries.length,
    utterances: times.with.length,
    prepareMs: Math.round(prepareMs),
    ...result,
    glossaryStepsP95: round2(percentile(times.steps, 95)),
    addedP95,
    pass: addedP95 <= GLOSSARY_ADDED_P95_MS,
  };
}

export function glossaryTable(g: GlossaryOverhead): string[] {
  return [
    `Translating an utterance (Apertium en→es, the recordings' text) with a ${g.entries.toLocaleString('en')}-entry glossary vs none, ${g.utterances} utterances each; the glossary prepared once per version in ${g.prepareMs} ms:`,
    '',
    '| glossary | p50 ms | p95 ms | added p95 ms | glossary steps alone p95 ms | target | pass/fail |',
    '|---|--:|--:|--:|--:|---|---|',
    `| none | ${g.none.p50} | ${g.none.p95} | — | — | — | — |`,
    `| ${g.entries.toLocaleString('en')} entries | ${g.withGlossary.p50} | ${g.withGlossary.p95} | ${g.addedP95} | ${g.glossaryStepsP95} | added p95 ≤ ${GLOSSARY_ADDED_P95_MS} ms | ${g.pass ? 'pass' : 'FAIL'} |`,
    '',
  ];
}
