/**
 * How many speaker streams this machine serves in real time with the local pipeline, measured at
 * worker start: one recording is run through the speaker pipeline as a stream really runs — fed in real
 * time, its translated speech played out in real time, in the configured timing (sentence or
 * simultaneous) — and the CPU it took (this process and the engines' processes) per second of audio is
 * the cost of one stream. The recording is followed by a pause as long as itself: a speaker in a
 * conversation talks about half the time, and so do the bench's speakers, whose streams K is checked
 * against (a stream costed as speech throughout gave K = 1 where the bench served 4 in time). About 17 s;
 * run as fast as it goes, the same work cost less CPU per second (no 10 ms pacing of frames in and out)
 * and the figure did not match what the bench's streams cost.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { SpeechPipelineConfig } from '../config';
import { translateFile } from '../tools/file-translation';
import { parseWav, type PcmAudio } from '../tools/wav';
import { createSpeechProviders } from '../translation/providers';
import { chunkPolicyFor } from '../translation/stable-chunks';

/**
 * Share of the cores the admitted streams may use: the rest absorbs decoding bursts, captions-only streams and node.
 * Measured with streams that speak half the time (the bench's, and the calibration's recording and pause): 3 streams
 * at 43 % of 2 cores kept first audio p95 under 1.5 s in simultaneous timing, 4 at 58 % did not.
 */
export const TARGET_UTILIZATION = 0.5;
/** Silence `translateFile` adds around the recording, which recognition processes too. */
const PADDING_SECONDS = 2.5;
/** Debian's pocketsphinx-testdata: 7 s of read English. */
const RECORDING = '/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0870.wav';

export interface Calibration {
  capacity: number;
  /** CPU seconds one stream takes per second of audio. */
  costPerStream: number;
  cores: number;
  recording: string;
  /** The timing it ran in (the configured one) and the pieces of speech it spoke: one per utterance, or its chunks. */
  timing: SpeechPipelineConfig['timing'];
  piecesSpoken: number;
  wallMs: number;
  /** Fed and played out in real time, as streams run (the worker's calibration); false: as fast as it goes. */
  paced: boolean;
}

/** Streams the cores serve at the target utilization, at least one. */
export function capacityFor(costPerStream: number, cores: number, utilization = TARGET_UTILIZATION): number {
  return Math.max(1, Math.floor((cores * utilization) / costPerStream));
}

/** CPU seconds of this process and of its ended (waited-for) children: /proc/self/stat utime, stime, cutime, cstime. */
export function cpuSeconds(): number {
  const own = process.cpuUsage();
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields after the command name start at 3 (state): cutime and cstime are 16 and 17, in clock ticks (100 Hz on Linux).
  const children = (Number(fields[16 - 3]) + Number(fields[17 - 3])) / 100;
  return (own.user + own.system) / 1e6 + children;
}

/** The recording: Debian's LibriVox clip, or a sentence eSpeak NG (a local-pipeline engine) speaks when it is absent. */
function recording(): { audio: PcmAudio; name: string } {
  if (existsSync(RECORDING)) return { audio: parseWav(readFileSync(RECORDING)), name: path.basename(RECORDING) };
  const dir = mkdtempSync(path.join(os.tmpdir(), 'translator-calibration-'));
  try {
    const file = path.join(dir, 'speech.wav');
    const text = 'And mister John Dashwood had then leisure to consider how much there might be prudently in his power to do for them.';
    execFileSync('espeak-ng', ['-v', 'en-us', '-w', file, text]);
    return { audio: parseWav(readFileSync(file)), name: 'espeak-ng sentence' };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The recording, then as long a pause: half the time speech, as a speaker in a conversation. */
export function withEqualPause(audio: PcmAudio): PcmAudio {
  const samples = new Int16Array(audio.samples.length * 2);
  samples.set(audio.samples);
  return { ...audio, samples };
}

/** Runs the local pipeline over the recording and its pause once: in real time by default (about 17 s at start). */
export async function calibrateStreamCapacity(
  pipeline: SpeechPipelineConfig,
  cores = os.availableParallelism(),
  paced = true,
): Promise<Calibration> {
  const { audio, name } = recording();
  const providers = createSpeechProviders(pipeline, 24_000, () => undefined);
  try {
    const started = performance.now();
    const before = cpuSeconds();
    const { result } = await translateFile({
      from: 'en',
      to: pipeline.local?.targets[0] ?? 'es',
      audio: withEqualPause(audio),
      providers,
      sampleRate: 24_000,
      paced,
      // Simultaneous mode costs more per stream (a synthesis per chunk): measured as configured.
      simultaneous: chunkPolicyFor(pipeline.timing),
    });
    const cost = (cpuSeconds() - before) / (result.input_seconds + PADDING_SECONDS);
    return {
      capacity: capacityFor(cost, cores),
      costPerStream: cost,
      cores,
      recording: name,
      timing: pipeline.timing,
      piecesSpoken: result.chunks_spoken,
      wallMs: Math.round(performance.now() - started),
      paced,
    };
  } finally {
    await providers.close?.();
  }
}
