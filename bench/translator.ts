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
// 3. Word lag, sentence against simultaneous mode, BENCH_TRANSLATOR_LAG_ROUNDS passes (default 5): each clip and
//    the joined turn (the five clips as one 23 s utterance, 0.2 s apart) through translate:file's code in real
//    time at 1 stream — word lag p50/p95/max over every word of every pass, the WER of the words sent to
//    translation and of the final recognition, words revised, the end of the translated speech after the end of
//    the input, the share of the chunked translation's words found in sentence mode's and chrF against it —
//    and, first, 1 and K parallel streams (RoomTranslator, real AudioSource tracks) each saying the joined turn.
// 4. Glossaries, BENCH_TRANSLATOR_GLOSSARY_ROUNDS passes (default 20; 0 skips it): an utterance translated with a
//    10,000-entry glossary against none (bench/glossary-overhead.ts).
// Prints markdown tables, then one JSON line (read by bench/run.mjs). The streams of 1 and 3 run in
// bench/translator-streams.ts, the word lag of 3 is bench/translator-word-lag.ts.
// Env: BENCH_TRANSLATOR_STREAMS (default 1,2,4,8; 0 skips the capacity part), BENCH_TRANSLATOR_ROUNDS (default 5; 0
//      skips the per-clip part), BENCH_TRANSLATOR_LAG_ROUNDS (default 5; 0 skips the word-lag part),
//      BENCH_TRANSLATOR_LAG_PARTS (streams,inputs: the word-lag parts to run, default both),
//      TRANSLATOR_STREAM_CAPACITY (K instead of the calibration).
import { initializeLogger } from '@livekit/agents';
import { dispose } from '@livekit/rtc-node';
import os from 'node:os';
import { calibrateStreamCapacity } from '../apps/translator-agent/src/capacity/calibration';
import { loadAgentConfig } from '../apps/translator-agent/src/config';
import { deliveredFrames, translateFile } from '../apps/translator-agent/src/tools/file-translation';
import { wordErrorRate } from '../apps/translator-agent/src/tools/wer';
import { createSpeechProviders } from '../apps/translator-agent/src/translation/providers';
import { OUTPUT_SAMPLE_RATE } from '../apps/translator-agent/src/translation/room-translator';
import { chunkPolicyFor } from '../apps/translator-agent/src/translation/stable-chunks';
import { librivoxClips } from '../apps/translator-agent/test/support/local-speech';
import { glossaryOverhead, glossaryTable } from './glossary-overhead';
import { FRAME_MS, runStreams, silence, type StreamsRow } from './translator-streams';
import {
  LAG_P95_1,
  LAG_P95_K,
  lagCell,
  lagInputMisses,
  mean,
  range,
  SPEECH_END_MS,
  type StreamsLagRow,
  AGREEMENT_MEAN,
  AGREEMENT_MIN,
  COMMITTED_WER_MARGIN,
  wordLagPerInput,
  wordLagStreams,
} from './translator-word-lag';

initializeLogger({ pretty: false, level: 'error' });

const TARGET_P95_MS = 1500;

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
    // In the configured timing, as the worker's calibration runs and streams really run.
    rows.push(await runStreams(n, capacity, speechOf, chunkPolicyFor(loaded.config.pipeline.timing)));
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
  const streamMisses = lagStreams
    .filter((r) => r.timing === 'simultaneous' && (r.lag?.p95 ?? Infinity) > (r.n === 1 ? LAG_P95_1 : LAG_P95_K))
    .map((r) => `${r.n} streams: p95 ${r.lag?.p95 ?? '—'} ms`);
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
      `Word lag (ms, every word of ${lagRounds} passes), 1 stream in real time; the rest as mean (min–max) over the passes. ` +
        'WER of the words sent to translation (committed) and of the final recognition; agreement: the share of the ' +
        "translation's words found in the same pass's sentence-mode translation:",
      '',
      '| input | timing | words | WER committed | WER final | words revised | agreement with sentence | chrF vs sentence | word lag p50 / p95 / max | chunks spoken | first audio ms | speech ends after input ms |',
      '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
      ...lagInputs.map(
        (r) =>
          `| ${r.input} | ${r.timing} | ${r.words} | ${range(r.committedWer, 3)} | ${range(r.wer, 3)} | ${range(r.revised, 1)} | ` +
          `${r.agreement.length > 0 ? range(r.agreement, 2) : '—'} | ${r.chrf.length > 0 ? range(r.chrf, 1) : '—'} | ${lagCell(r.lag)} | ` +
          `${range(r.chunks, 1)} | ${range(r.firstAudio)} | ${range(r.speechEndAfterInput)} |`,
      ),
      '',
      `Simultaneous mode's agreement with sentence mode, mean over the inputs: ${mean(
        lagInputs.filter((r) => r.timing === 'simultaneous').map((r) => mean(r.agreement)),
      ).toFixed(3)}`,
      '',
      `Simultaneous mode against its targets (per input: committed words' WER ≤ final + ${COMMITTED_WER_MARGIN}, agreement with sentence ` +
        `mode ≥ ${AGREEMENT_MIN} in every pass and ≥ ${AGREEMENT_MEAN} on average, word lag p95 ≤ ${LAG_P95_1} ms, speech ends ≤ ${SPEECH_END_MS} ms ` +
        'after the input in every pass): ' +
        (lagMisses.join('; ') || 'all met'),
      '',
      `| parallel streams (the joined turn each) | timing | word lag p50 / p95 / max | words | speech dropped (late) |`,
      '|--:|---|--:|--:|--:|',
      ...lagStreams.map((r) => `| ${r.n} | ${r.timing} | ${lagCell(r.lag)} | ${r.lag?.words ?? 0} | ${r.droppedLate} |`),
      '',
    );
  }
  if (streamMisses.length > 0 || lagStreams.length > 0)
    out.push(
      `Simultaneous word lag p95 at 1 stream ≤ ${LAG_P95_1} ms and at K = ${capacity} ≤ ${LAG_P95_K} ms: ${streamMisses.join('; ') || 'met'}`,
      '',
    );
  if (glossary) out.push(...glossaryTable(glossary));
  const beyond = rows.filter((r) => r.n > capacity);
  const pass =
    (!atK || (atK.firstAudio.p95 <= TARGET_P95_MS && beyond.every((r) => r.firstAudio.p95 <= TARGET_P95_MS))) &&
    streamMisses.length === 0 &&
    lagMisses.length === 0 &&
    (glossary?.pass ?? true);
  process.stdout.write(`${out.join('\n')}\n${JSON.stringify({ capacity, pass, rows, clips, lagInputs, lagStreams, glossary })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${String((error as Error)?.stack ?? error)}\n`);
  process.exit(1);
});
