// The translator rows' parallel speaker streams (bench/translator.ts): N rooms of the worker's own room code
// (`RoomTranslator`, in stand-in rooms with real AudioSource tracks) under one stream budget, each speaker's
// audio delivered in real time; what one run of them measured.
import { AudioFrame, type RemoteTrack } from '@livekit/rtc-node';
import { readdirSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { englishSpanishIn, FakeRoom } from '../apps/translator-agent/test/support/fake-room';
import { cpuSeconds } from '../apps/translator-agent/src/capacity/calibration';
import { LocalAdmission, StreamBudget } from '../apps/translator-agent/src/capacity/stream-budget';
import { loadAgentConfig } from '../apps/translator-agent/src/config';
import type { PipelineObserver } from '../apps/translator-agent/src/metrics/agent-metrics';
import { createSpeechProviders } from '../apps/translator-agent/src/translation/providers';
import { OUTPUT_SAMPLE_RATE, RoomTranslator, type TrackAudio } from '../apps/translator-agent/src/translation/room-translator';
import type { ChunkPolicy } from '../apps/translator-agent/src/translation/stable-chunks';
import type { SpokenChunk } from '../apps/translator-agent/src/translation/word-lag';

export const FRAME_MS = 10;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export const silence = (ms: number) =>
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

export interface StreamsRow {
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

export async function runStreams(
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
      ...englishSpanishIn(room, providers),
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
