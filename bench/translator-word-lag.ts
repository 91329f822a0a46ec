// The translator rows' word lag, sentence against simultaneous mode (bench/translator.ts): each clip and the
// joined turn through translate:file's code at 1 stream, and 1 and K parallel streams each saying the joined
// turn; what the listener heard (the WER of the words sent to translation, agreement with sentence mode's
// translation) and what simultaneous mode misses of its targets.
import { wordShare } from '../apps/translator-agent/src/tools/agreement';
import { chrF } from '../apps/translator-agent/src/tools/chrf';
import { deliveredFrames, translateFile } from '../apps/translator-agent/src/tools/file-translation';
import type { PcmAudio } from '../apps/translator-agent/src/tools/wav';
import { wordErrorRate } from '../apps/translator-agent/src/tools/wer';
import { loadAgentConfig } from '../apps/translator-agent/src/config';
import { createSpeechProviders } from '../apps/translator-agent/src/translation/providers';
import { OUTPUT_SAMPLE_RATE } from '../apps/translator-agent/src/translation/room-translator';
import { DEFAULT_CHUNK_POLICY } from '../apps/translator-agent/src/translation/stable-chunks';
import { summarizeWordLag, type SpokenChunk, type WordLagSummary } from '../apps/translator-agent/src/translation/word-lag';
import { joinedTurn, librivoxClips } from '../apps/translator-agent/test/support/local-speech';
import { FRAME_MS, runStreams, silence } from './translator-streams';

/** Simultaneous mode's word lag p95 targets: at 1 stream and at K streams. */
export const LAG_P95_1 = 3000;
export const LAG_P95_K = 3500;
/** Simultaneous mode's translated speech ends at most this long after the input (every pass). */
export const SPEECH_END_MS = 2000;
/** The WER of the words sent to translation at most the final recognition's plus this. */
export const COMMITTED_WER_MARGIN = 0.05;
/** The share of the translation's words found in sentence mode's: on every input, in every pass, and on average over the inputs. */
export const AGREEMENT_MIN = 0.8;
export const AGREEMENT_MEAN = 0.9;

export const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);

/** The per-input targets for simultaneous mode at 1 stream: what each input misses (empty: all met). */
export function lagInputMisses(rows: LagRow[]): string[] {
  const misses: string[] = [];
  const simultaneous = rows.filter((r) => r.timing === 'simultaneous');
  for (const row of simultaneous) {
    if ((row.lag?.p95 ?? Infinity) > LAG_P95_1) misses.push(`${row.input}: word lag p95 ${row.lag?.p95 ?? '—'} ms > ${LAG_P95_1}`);
    const latestEnd = Math.max(...row.speechEndAfterInput);
    if (row.speechEndAfterInput.length === 0 || latestEnd > SPEECH_END_MS)
      misses.push(`${row.input}: speech ends ${row.speechEndAfterInput.length ? latestEnd : '—'} ms after the input > ${SPEECH_END_MS}`);
    if (mean(row.committedWer) > mean(row.wer) + COMMITTED_WER_MARGIN)
      misses.push(
        `${row.input}: committed words' WER ${mean(row.committedWer).toFixed(3)} > final ${mean(row.wer).toFixed(3)} + ${COMMITTED_WER_MARGIN}`,
      );
    if (row.agreement.length === 0 || Math.min(...row.agreement) < AGREEMENT_MIN)
      misses.push(
        `${row.input}: agreement with sentence mode ${row.agreement.length ? Math.min(...row.agreement).toFixed(2) : '—'} < ${AGREEMENT_MIN}`,
      );
  }
  const average = mean(simultaneous.map((r) => mean(r.agreement)));
  if (simultaneous.length > 0 && average < AGREEMENT_MEAN)
    misses.push(`agreement with sentence mode ${average.toFixed(3)} on average < ${AGREEMENT_MEAN}`);
  return misses;
}

export type Timing = 'sentence' | 'simultaneous';
const TIMINGS: Timing[] = ['sentence', 'simultaneous'];
const policyOf = (timing: Timing) => (timing === 'simultaneous' ? DEFAULT_CHUNK_POLICY : null);

export interface LagRow {
  input: string;
  timing: Timing;
  words: number;
  /** WER of the final recognition (the transcript). */
  wer: number[];
  /** WER of the words sent to translation, in order (sentence mode: the transcript's). */
  committedWer: number[];
  /** Words sent to translation that the final recognition revised. */
  revised: number[];
  /** Share of this pass's translation's words found in the same pass's sentence-mode translation (simultaneous rows). */
  agreement: number[];
  lag: WordLagSummary | null;
  firstAudio: number[];
  speechEndAfterInput: number[];
  /** chrF of this pass's translation against sentence mode's in the same pass (simultaneous rows). */
  chrf: number[];
  chunks: number[];
}

/** Each clip and the joined turn, both timings, `rounds` passes at 1 stream in real time. */
export async function wordLagPerInput(rounds: number): Promise<LagRow[]> {
  const loaded = loadAgentConfig({ TRANSLATOR_PIPELINE: 'local' });
  if (!loaded.ok) throw new Error(loaded.problem);
  const providers = createSpeechProviders(loaded.config.pipeline, OUTPUT_SAMPLE_RATE, () => undefined);
  const clips = librivoxClips();
  const inputs: { input: string; reference: string; audio: PcmAudio }[] = [
    ...clips.map((c) => ({ input: c.id.replace(/^.*-/, ''), reference: c.reference, audio: c.audio })),
    { input: 'joined', reference: clips.map((c) => c.reference).join(' '), audio: joinedTurn() },
  ];
  const rows = new Map<string, LagRow & { spoken: SpokenChunk[] }>();
  await translateFile({ from: 'en', to: 'es', audio: clips[0]!.audio, providers, sampleRate: OUTPUT_SAMPLE_RATE, paced: false }); // warm-up
  for (let round = 0; round < rounds; round += 1) {
    for (const { input, reference, audio } of inputs) {
      const translations = new Map<Timing, string>();
      for (const timing of TIMINGS) {
        process.stderr.write(`bench: word lag, pass ${round + 1}/${rounds}, ${input}, ${timing}\n`);
        const detail = await translateFile({
          from: 'en',
          to: 'es',
          audio,
          providers,
          sampleRate: OUTPUT_SAMPLE_RATE,
          simultaneous: policyOf(timing),
        });
        const key = `${input}/${timing}`;
        const row = rows.get(key) ?? {
          input,
          timing,
          words: reference.split(/\s+/).length,
          wer: [],
          committedWer: [],
          revised: [],
          agreement: [],
          lag: null,
          firstAudio: [],
          speechEndAfterInput: [],
          chrf: [],
          chunks: [],
          spoken: [],
        };
        row.wer.push(wordErrorRate(reference, detail.result.transcript));
        row.committedWer.push(wordErrorRate(reference, detail.result.committed_text));
        row.revised.push(detail.result.revised_words);
        row.spoken.push(...detail.spoken);
        if (detail.result.first_audio_ms !== null) row.firstAudio.push(detail.result.first_audio_ms);
        if (detail.result.speech_end_after_input_ms !== null) row.speechEndAfterInput.push(detail.result.speech_end_after_input_ms);
        row.chunks.push(detail.result.chunks_spoken);
        translations.set(timing, detail.result.translation);
        if (timing === 'simultaneous') {
          row.chrf.push(chrF(translations.get('sentence') ?? '', detail.result.translation));
          row.agreement.push(wordShare(translations.get('sentence') ?? '', detail.result.translation));
        }
        rows.set(key, row);
      }
    }
  }
  await providers.close?.();
  return [...rows.values()].map(({ spoken, ...row }) => ({ ...row, lag: summarizeWordLag(spoken) }));
}

export interface StreamsLagRow {
  n: number;
  timing: Timing;
  lag: WordLagSummary | null;
  droppedLate: number;
}

/** `n` parallel rooms (all admitted), each speaker saying the joined turn, `rounds` passes per timing. */
export async function wordLagStreams(n: number, rounds: number): Promise<StreamsLagRow[]> {
  const frames = deliveredFrames(joinedTurn(), OUTPUT_SAMPLE_RATE, FRAME_MS);
  const speechOf = (i: number) => [...silence(1000 + (i % 8) * 370), ...frames, ...silence(2500)];
  const rows: StreamsLagRow[] = [];
  for (const timing of TIMINGS) {
    const spoken: SpokenChunk[] = [];
    let droppedLate = 0;
    for (let round = 0; round < rounds; round += 1) {
      process.stderr.write(`bench: word lag, ${n} streams, pass ${round + 1}/${rounds}, ${timing}\n`);
      const row = await runStreams(n, n, speechOf, policyOf(timing), spoken);
      droppedLate += row.droppedLate;
    }
    rows.push({ n, timing, lag: summarizeWordLag(spoken), droppedLate });
  }
  return rows;
}

export const lagCell = (lag: WordLagSummary | null) => (lag ? `${lag.p50} / ${lag.p95} / ${lag.max}` : '—');
export const range = (values: number[], digits = 0) =>
  values.length === 0
    ? '—'
    : `${mean(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)})`;
