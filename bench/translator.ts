// The translator rows of `npm run bench`: the local speech pipeline (PocketSphinx → Apertium → eSpeak NG).
//
// 1. Capacity: N = 1, 2, 4, 8 (and the worker's admitted K) parallel speaker streams, each a room of the
//    worker's own room code (`RoomTranslator`, in a stand-in room with real AudioSource tracks) under one
//    worker stream budget of K streams (calibrated as the worker does at start). Every speaker says
//    Debian's five LibriVox clips, fed in real time in 10 ms frames, pausing after each as long as it spoke. Per N: real-time factor (wall ÷
//    audio), end of utterance → first translated audio p50/p95 of the streams admitted to full service,
//    captions (end of speech → final transcript) p95 of all streams, CPU and memory per stream.
// 2. Per clip, one stream at a time, BENCH_TRANSLATOR_ROUNDS passes (default 5): word error rate and
//    first audio, as mean and spread (min–max).
// 3. Word lag (issue 26), sentence against simultaneous mode, BENCH_TRANSLATOR_LAG_ROUNDS passes (default 5):
//    each clip and the joined turn (the five clips as one 23 s utterance, 0.2 s apart) through translate:file's
//    code in real time at 1 stream — word lag p50/p95/max over every word of every pass, WER, the end of the
//    translated speech after the end of the input, chrF of the chunked translation against sentence mode's —
//    and, first, 1 and K parallel streams (RoomTranslator, real AudioSource tracks) each saying the joined turn.
// 4. Glossaries, BENCH_TRANSLATOR_GLOSSARY_ROUNDS passes (default 20; 0 skips it): an utterance translated with a
//    10,000-entry glossary against none (bench/glossary-overhead.ts).
// Prints markdown tables, then one JSON line (read by bench/run.mjs).
// Env: BENCH_TRANSLATOR_STREAMS (default 1,2,4,8; 0 skips the capacity part), BENCH_TRANSLATOR_ROUNDS (default 5; 0
//      skips the per-clip part), BENCH_TRANSLATOR_LAG_ROUNDS (default 5; 0 skips the word-lag part),
//      BENCH_TRANSLATOR_LAG_PARTS (streams,inputs: the word-lag parts to run, default both),
//      TRANSLATOR_STREAM_CAPACITY (K instead of the calibration).
import { initializeLogger } from '@livekit/agents';
import { AudioFrame, dispose, type RemoteTrack } from '@livekit/rtc-node';
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { FakeRoom } from '../apps/translator-agent/test/support/fake-room';
import { joinedTurn, librivoxClips } from '../apps/translator-agent/test/support/local-speech';
import { chrF } from '../apps/translator-agent/src/tools/chrf';
import type { PcmAudio } from '../apps/translator-agent/src/tools/wav';
import { DEFAULT_CHUNK_POLICY, type ChunkPolicy } from '../apps/translator-agent/src/translation/stable-chunks';
import { summarizeWordLag, type SpokenChunk, type WordLagSummary } from '../apps/translator-agent/src/translation/word-lag';
import { glossaryOverhead, glossaryTable } from './glossary-overhead';
import { calibrateStreamCapacity, cpuSeconds } from '../apps/translator-agent/src/capacity/calibration';
import { LocalAdmission, StreamBudget } from '../apps/translator-agent/src/capacity/stream-budget';
import { loadAgentConfig } from '../apps/translator-agent/src/config';
import type { PipelineObserver } from '../apps/translator-agent/src/metrics/agent-metrics';
import { deliveredFrames, translateFile } from '../apps/translator-agent/src/tools/file-translation';
import { wordErrorRate } from '../apps/translator-agent/src/tools/wer';
import { LatencyTracker } from '../apps/translator-agent/src/translation/latency-tracker';
import { createSpeechProviders } from '../apps/translator-agent/src/translation/providers';
import { OUTPUT_SAMPLE_RATE, RoomTranslator, type TrackAudio } from '../apps/translator-agent/src/translation/room-translator';

initializeLogger({ pretty: false, level: 'error' });

const FRAME_MS = 10;
const TARGET_P95_MS = 1500;
/** Issue 26's targets for simultaneous mode's word lag p95: at 1 stream and at K streams. */
const LAG_P95_1 = 3000;
const LAG_P95_K = 3500;
/** Issue 26: simultaneous mode's translated speech ends at most this long after the input (every pass). */
const SPEECH_END_MS = 2000;
/** Issue 26: simultaneous mode's WER at most sentence mode's plus this. */
const WER_MARGIN = 0.03;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const silence = (ms: number) =>
  Array.from(
    { length: ms / FRAME_MS },
    () =>
      new AudioFrame(new Int16Array((OUTPUT_SAMPLE_RATE * FRAME_MS) / 1000), OUTPUT_SAMPLE_RATE, 1, (OUTPUT_SAMPLE_RATE * FRAME_MS) / 1000),
  );

/** Resident memory (kB) of this process and its child processes (the engines). */
function rssKb(): number {
  const read = (pid: string | number) => {
    try {
      return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      return 0;
    }
  };
  let children: string[] = [];
  try {
    children = readdirSync('/proc/self/task').flatMap((t) =>
      readFileSync(`/proc/self/task/${t}/children`, 'utf8').split(' ').filter(Boolean),
    );
  } catch {
    // not Linux
  }
  return read('self') + children.reduce((sum, pid) => sum + read(pid), 0);
}

/** A track that delivers `frames` in real time, as LiveKit does. */
function pacedTrack(frames: AudioFrame[]): TrackAudio {
  let stopped = false;
  return {
    frames: (async function* () {
      const startedAt = performance.now();
      for (const [i, frame] of frames.entries()) {
        if (stopped) return;
        const wait = startedAt + i * FRAME_MS - performance.now();
        if (wait > 1) await sleep(wait);
        yield frame;
      }
    })(),
    stop: () => void (stopped = true),
  };
}

interface StreamsRow {
  n: number;
  full: number;
  captionsOnly: number;
  rtf: number;
  firstAudio: { p50: number; p95: number; samples: number };
  captionsP95: number;
  droppedLate: number;
  cpuPerStream: number;
  memoryMbPerStream: number;
}

async function runStreams(
  n: number,
  capacity: number,
  speechOf: (i: number) => AudioFrame[],
  simultaneous: ChunkPolicy | null = null,
  spoken: SpokenChunk[] = [],
): Promise<StreamsRow> {
  const loaded = loadAgentConfig({ TRANSLATOR_PIPELINE: 'local' });
  if (!loaded.ok) throw new Error(loaded.problem);
  const providers = createSpeechProviders(loaded.config.pipeline, OUTPUT_SAMPLE_RATE, () => undefined);
  const admission = new LocalAdmission(new StreamBudget(capacity));
  const firstAudio: number[] = [];
  const recognition: number[] = [];
  let droppedLate = 0;
  const observer: PipelineObserver = {
    firstAudio: (_s, _t, ms) => void firstAudio.push(ms),
    stage: (stage, ms) => void (stage === 'recognition' && recognition.push(ms)),
    utterance: (outcome, reason) => void (reason === 'late' && (droppedLate += 1)),
    recognitionRestart: () => undefined,
    providerError: () => undefined,
    spokenChunk: (_s, _t, chunk) => void spoken.push(chunk),
  };
  const rssBefore = rssKb();
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssKb())), 500);
  const cpuBefore = cpuSeconds();
  const started = performance.now();
  const rooms = Array.from({ length: n }, (_, i) => {
    const room = new FakeRoom();
    const translator = new RoomTranslator({
      room: room.asRoom(),
      mode: 'dual',
      languages: ['en', 'es'],
      providers,
      latency: new LatencyTracker(),
      onError: () => undefined,
      admission,
      observer,
      listenTo: (track: RemoteTrack) => pacedTrack(track.sid === `TR_${i}` ? speechOf(i) : []),
      simultaneous,
    });
    return { room, translator, i };
  });
  const services: string[] = [];
  try {
    for (const { room, translator, i } of rooms) {
      translator.listen();
      await translator.publish();
      // One after the other, as speakers join a worker's rooms: the first K are admitted in full.
      room.speak(room.join(`speaker-${i}`, ['en']), `TR_${i}`, []);
      await sleep(20);
    }
    for (const { translator } of rooms) services.push(...translator.services().values());
    for (const { translator } of rooms) await translator.settled();
    for (const { translator } of rooms) await translator.close();
  } finally {
    clearInterval(sampler);
  }
  const wall = (performance.now() - started) / 1000;
  await providers.close?.();
  await sleep(300); // Apertium's processes exit and are reaped, so their CPU is counted
  const cpu = cpuSeconds() - cpuBefore;
  const audioSeconds = speechOf(0).length / (1000 / FRAME_MS);
  return {
    n,
    full: services.filter((s) => s === 'full').length,
    captionsOnly: services.filter((s) => s === 'captions').length,
    rtf: round(wall / audioSeconds, 2),
    firstAudio: { p50: Math.round(percentile(firstAudio, 50)), p95: Math.round(percentile(firstAudio, 95)), samples: firstAudio.length },
    captionsP95: Math.round(percentile(recognition, 95)),
    droppedLate,
    cpuPerStream: round(cpu / audioSeconds / n, 3),
    memoryMbPerStream: Math.round((rssPeak - rssBefore) / 1024 / n),
  };
}

function round(value: number, digits: number): number {
  return Math.round(value * 10 ** digits) / 10 ** digits;
}

async function perClip(rounds: number) {
  const loaded = loadAgentConfig({ TRANSLATOR_PIPELINE: 'local' });
  if (!loaded.ok) throw new Error(loaded.problem);
  const providers = createSpeechProviders(loaded.config.pipeline, OUTPUT_SAMPLE_RATE, () => undefined);
  const clips = librivoxClips();
  const results = new Map<string, { words: number; wer: number[]; firstAudio: number[] }>();
  await translateFile({ from: 'en', to: 'es', audio: clips[0]!.audio, providers, sampleRate: OUTPUT_SAMPLE_RATE, paced: false }); // warm-up
  for (let round = 0; round < rounds; round += 1) {
    for (const clip of clips) {
      const { result } = await translateFile({ from: 'en', to: 'es', audio: clip.audio, providers, sampleRate: OUTPUT_SAMPLE_RATE });
      const entry = results.get(clip.id) ?? { words: clip.reference.split(/\s+/).length, wer: [], firstAudio: [] };
      entry.wer.push(wordErrorRate(clip.reference, result.transcript));
      if (result.first_audio_ms !== null) entry.firstAudio.push(result.first_audio_ms);
      results.set(clip.id, entry);
    }
  }
  await providers.close?.();
  return [...results].map(([id, r]) => ({ clip: id.replace(/^.*-/, ''), ...r }));
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);

/** Issue 26's per-input targets for simultaneous mode at 1 stream: what each input misses (empty: all met). */
function lagInputMisses(rows: LagRow[]): string[] {
  const misses: string[] = [];
  for (const row of rows.filter((r) => r.timing === 'simultaneous')) {
    const sentence = rows.find((r) => r.input === row.input && r.timing === 'sentence');
    if ((row.lag?.p95 ?? Infinity) > LAG_P95_1) misses.push(`${row.input}: word lag p95 ${row.lag?.p95 ?? '—'} ms > ${LAG_P95_1}`);
    const latestEnd = Math.max(...row.speechEndAfterInput);
    if (row.speechEndAfterInput.length === 0 || latestEnd > SPEECH_END_MS)
      misses.push(`${row.input}: speech ends ${row.speechEndAfterInput.length ? latestEnd : '—'} ms after the input > ${SPEECH_END_MS}`);
    if (sentence && mean(row.wer) > mean(sentence.wer) + WER_MARGIN)
      misses.push(`${row.input}: WER ${mean(row.wer).toFixed(3)} > sentence ${mean(sentence.wer).toFixed(3)} + ${WER_MARGIN}`);
  }
  return misses;
}

type Timing = 'sentence' | 'simultaneous';
const TIMINGS: Timing[] = ['sentence', 'simultaneous'];
const policyOf = (timing: Timing) => (timing === 'simultaneous' ? DEFAULT_CHUNK_POLICY : null);

interface LagRow {
  input: string;
  timing: Timing;
  words: number;
  wer: number[];
  lag: WordLagSummary | null;
  firstAudio: number[];
  speechEndAfterInput: number[];
  /** chrF of this pass's translation against sentence mode's in the same pass (simultaneous rows). */
  chrf: number[];
  chunks: number[];
}

/** Each clip and the joined turn, both timings, `rounds` passes at 1 stream in real time. */
async function wordLagPerInput(rounds: number): Promise<LagRow[]> {
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
          lag: null,
          firstAudio: [],
          speechEndAfterInput: [],
          chrf: [],
          chunks: [],
          spoken: [],
        };
        row.wer.push(wordErrorRate(reference, detail.result.transcript));
        row.spoken.push(...detail.spoken);
        if (detail.result.first_audio_ms !== null) row.firstAudio.push(detail.result.first_audio_ms);
        if (detail.result.speech_end_after_input_ms !== null) row.speechEndAfterInput.push(detail.result.speech_end_after_input_ms);
        row.chunks.push(detail.result.chunks_spoken);
        translations.set(timing, detail.result.translation);
        if (timing === 'simultaneous') row.chrf.push(chrF(translations.get('sentence') ?? '', detail.result.translation));
        rows.set(key, row);
      }
    }
  }
  await providers.close?.();
  return [...rows.values()].map(({ spoken, ...row }) => ({ ...row, lag: summarizeWordLag(spoken) }));
}

interface StreamsLagRow {
  n: number;
  timing: Timing;
  lag: WordLagSummary | null;
  droppedLate: number;
}

/** `n` parallel rooms (all admitted), each speaker saying the joined turn, `rounds` passes per timing. */
async function wordLagStreams(n: number, rounds: number): Promise<StreamsLagRow[]> {
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

const lagCell = (lag: WordLagSummary | null) => (lag ? `${lag.p50} / ${lag.p95} / ${lag.max}` : '—');
const range = (values: number[], digits = 0) =>
  values.length === 0
    ? '—'
    : `${mean(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)})`;

async function main(): Promise<void> {
  const loaded = loadAgentConfig({ TRANSLATOR_PIPELINE: 'local' });
  if (!loaded.ok) throw new Error(loaded.problem);
  const override = Number(process.env.TRANSLATOR_STREAM_CAPACITY ?? '');
  const calibration = Number.isInteger(override) && override > 0 ? null : await calibrateStreamCapacity(loaded.config.pipeline);
  const capacity = calibration?.capacity ?? override;
  const counts = (process.env.BENCH_TRANSLATOR_STREAMS ?? '1,2,4,8').split(',').map(Number);
  const ns = counts.includes(0) ? [] : [...new Set([...counts, capacity])].sort((a, b) => a - b);

  // Every speaker says the five clips after 1 s of silence (the track is subscribed first), pausing after each
  // as long as it spoke (at least 1.5 s) while the room hears its translation. Speaker i starts at clip i
  // and 370 ms later than speaker i − 1: speakers of different rooms do not end their utterances in step.
  const said = librivoxClips().map((clip) => {
    const frames = deliveredFrames(clip.audio, OUTPUT_SAMPLE_RATE, FRAME_MS);
    return [...frames, ...silence(Math.max(1500, Math.round((frames.length * FRAME_MS) / 100) * 100))];
  });
  const speechOf = (i: number) => [
    ...silence(1000 + (i % 8) * 370),
    ...said.flatMap((_, k) => said[(k + i) % said.length]!),
    ...silence((7 - (i % 8)) * 370),
  ];
  const rows: StreamsRow[] = [];
  for (const n of ns) {
    process.stderr.write(`bench: translator, ${n} parallel speaker streams (${capacity} admitted in full)\n`);
    rows.push(await runStreams(n, capacity, speechOf));
  }
  const rounds = Number(process.env.BENCH_TRANSLATOR_ROUNDS ?? '5');
  const clips = rounds > 0 ? await perClip(rounds) : [];
  const lagRounds = Number(process.env.BENCH_TRANSLATOR_LAG_ROUNDS ?? '5');
  const lagParts = (process.env.BENCH_TRANSLATOR_LAG_PARTS ?? 'streams,inputs').split(',');
  // K streams first (the shorter part); each part's figures go to stderr as soon as it ends.
  const lagStreams: StreamsLagRow[] = [];
  // At 1 stream and at K (once when K is 1).
  for (const n of lagRounds > 0 && lagParts.includes('streams') ? [...new Set([1, capacity])] : [])
    lagStreams.push(...(await wordLagStreams(n, lagRounds)));
  process.stderr.write(`bench: word lag at 1 and K streams: ${JSON.stringify(lagStreams)}\n`);
  const lagInputs = lagRounds > 0 && lagParts.includes('inputs') ? await wordLagPerInput(lagRounds) : [];
  const lagMisses = lagInputMisses(lagInputs);
  const glossaryRounds = Number(process.env.BENCH_TRANSLATOR_GLOSSARY_ROUNDS ?? '20');
  const glossaryProviders = createSpeechProviders(loaded.config.pipeline, OUTPUT_SAMPLE_RATE, () => undefined);
  const glossary = glossaryRounds > 0 ? await glossaryOverhead(glossaryProviders, glossaryRounds) : null;
  await glossaryProviders.close?.();
  await dispose();

  const out: string[] = [];
  out.push(
    `stream capacity: ${capacity} (${calibration ? `calibrated: ${calibration.costPerStream.toFixed(3)} CPU s per audio s, ${calibration.cores} cores, ${calibration.wallMs} ms` : 'TRANSLATOR_STREAM_CAPACITY'}); ` +
      `${os.availableParallelism()} cores, load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    '',
    '| parallel streams | full / captions only | wall ÷ audio | first audio p50 / p95 ms (full streams) | utterances spoken | speech dropped (late) | captions p95 ms (all) | CPU s per audio s per stream | memory MB per stream |',
    '|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
    ...rows.map(
      (r) =>
        `| ${r.n} | ${r.full} / ${r.captionsOnly} | ${r.rtf} | ${r.firstAudio.p50} / ${r.firstAudio.p95} | ${r.firstAudio.samples} | ${r.droppedLate} | ${r.captionsP95} | ${r.cpuPerStream} | ${r.memoryMbPerStream} |`,
    ),
    '',
  );
  const atK = rows.find((r) => r.n === capacity);
  if (atK) out.push(`admitted streams per worker: ${capacity} (first audio p95 ${atK.firstAudio.p95} ms at ${capacity} streams)`, '');
  if (clips.length > 0) {
    out.push(
      `| clip | words | WER mean (min–max) over ${rounds} runs | first audio ms mean (min–max) |`,
      '|---|--:|--:|--:|',
      ...clips.map(
        (c) =>
          `| ${c.clip} | ${c.words} | ${mean(c.wer).toFixed(3)} (${Math.min(...c.wer).toFixed(3)}–${Math.max(...c.wer).toFixed(3)}) | ` +
          `${Math.round(mean(c.firstAudio))} (${Math.min(...c.firstAudio)}–${Math.max(...c.firstAudio)}) |`,
      ),
      '',
    );
  }
  if (lagInputs.length > 0) {
    out.push(
      `Word lag (ms, every word of ${lagRounds} passes), 1 stream in real time; WER and chrF as mean (min–max) over the passes:`,
      '',
      '| input | timing | words | WER | word lag p50 / p95 / max | chunks spoken | first audio ms | speech ends after input ms | chrF vs sentence |',
      '|---|---|--:|--:|--:|--:|--:|--:|--:|',
      ...lagInputs.map(
        (r) =>
          `| ${r.input} | ${r.timing} | ${r.words} | ${range(r.wer, 3)} | ${lagCell(r.lag)} | ${range(r.chunks, 1)} | ${range(r.firstAudio)} | ${range(r.speechEndAfterInput)} | ${r.chrf.length > 0 ? range(r.chrf, 1) : '—'} |`,
      ),
      '',
      `Simultaneous mode against issue 26's targets (word lag p95 ≤ ${LAG_P95_1} ms, speech ends ≤ ${SPEECH_END_MS} ms after the input in every pass, WER ≤ sentence + ${WER_MARGIN}): ` +
        (lagMisses.join('; ') || 'all met'),
      '',
      `| parallel streams (the joined turn each) | timing | word lag p50 / p95 / max | words | speech dropped (late) |`,
      '|--:|---|--:|--:|--:|',
      ...lagStreams.map((r) => `| ${r.n} | ${r.timing} | ${lagCell(r.lag)} | ${r.lag?.words ?? 0} | ${r.droppedLate} |`),
      '',
    );
  }
  if (glossary) out.push(...glossaryTable(glossary));
  const beyond = rows.filter((r) => r.n > capacity);
  const pass =
    (!atK || (atK.firstAudio.p95 <= TARGET_P95_MS && beyond.every((r) => r.firstAudio.p95 <= TARGET_P95_MS))) &&
    lagStreams.filter((r) => r.timing === 'simultaneous').every((r) => (r.lag?.p95 ?? Infinity) <= (r.n === 1 ? LAG_P95_1 : LAG_P95_K)) &&
    lagMisses.length === 0 &&
    (glossary?.pass ?? true);
  process.stdout.write(`${out.join('\n')}\n${JSON.stringify({ capacity, pass, rows, clips, lagInputs, lagStreams, glossary })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${String((error as Error)?.stack ?? error)}\n`);
  process.exit(1);
});
