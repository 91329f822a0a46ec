import { AudioByteStream } from '@livekit/agents';
import { AudioFrame, AudioResampler } from '@livekit/rtc-node';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { ownFrame } from '../translation/frames';
import { LanguageOutput } from '../translation/language-output';
import { LatencyTracker } from '../translation/latency-tracker';
import {
  SpeakerPipeline,
  type FinalSegment,
  type SpeechProviders,
  type TranscriptSegment,
  type TranslationOutputs,
  type TranslationSegment,
} from '../translation/speaker-pipeline';
import type { PipelineObserver } from '../metrics/agent-metrics';
import type { PcmAudio } from './wav';

export interface FileTranslationOptions {
  from: string;
  to: string;
  audio: PcmAudio;
  providers: SpeechProviders;
  /** The rate LiveKit delivers the speaker's track at and the published track's rate. */
  sampleRate: number;
  /** Milliseconds of audio per pushed frame (LiveKit delivers 10 ms frames). */
  frameMs?: number;
  /** Push frames in real time, as from a microphone (default); false pushes them as fast as taken. */
  paced?: boolean;
  /**
   * Silence before the file: a track is subscribed (and its recognizer started) before its speaker
   * talks. Without it, the recognizer's start-up would be counted as latency of the first utterance.
   */
  leadingSilenceMs?: number;
  /** Silence after the file, as a microphone keeps sending: lets voice activity detection close the last utterance. */
  trailingSilenceMs?: number;
  onError?: (error: unknown) => void;
  /** Told of first audio, stage durations, dropped utterances (the agent's metrics). */
  observer?: PipelineObserver;
  /** Also publishes the captions, as the agent does (tests read what a room would receive). */
  captions?: Pick<TranslationOutputs, 'transcript' | 'translation'>;
  /** Who speaks in the file (captions, transcript): default `file`. */
  identity?: string;
  /** Segment ids are `<prefix>-<n>`: default `file`; unique per run when reported into a room's transcript. */
  segmentPrefix?: string;
  /** Each final segment with its translation (or none), in spoken order: a room's transcript (`--room`). */
  report?: (segment: FinalSegment) => Promise<void>;
}

export interface FileTranslation {
  transcript: string;
  translation: string;
  input_seconds: number;
  output_seconds: number;
  /** End of the first utterance's speech in the input → its first translated audio frame, or null when nothing was said. */
  first_audio_ms: number | null;
}

export interface FileTranslationDetail {
  result: FileTranslation;
  /** The translated speech, mono at `sampleRate`. */
  audio: Int16Array;
  sampleRate: number;
  /** The sample rates of the frames played onto the track (one: the track's). */
  frameRates: number[];
  transcripts: TranscriptSegment[];
  translations: TranslationSegment[];
  /** The final segments as reported (whether or not a `report` was given). */
  segments: FinalSegment[];
  /** Wall-clock marks of the first utterance (performance.now() ms), for the benchmark's breakdown. */
  firstUtterance: { speechEndAt: number; finalAt: number; firstAudioAt: number } | null;
}

/** The speaker's audio as LiveKit would deliver it: mono, resampled to `sampleRate`, in `frameMs` frames. */
export function deliveredFrames(audio: PcmAudio, sampleRate: number, frameMs = 10): AudioFrame[] {
  const { channels } = audio;
  const count = Math.floor(audio.samples.length / channels);
  const mono = new Int16Array(count);
  for (let i = 0; i < count; i += 1) {
    let sum = 0;
    for (let c = 0; c < channels; c += 1) sum += audio.samples[i * channels + c]!;
    mono[i] = Math.round(sum / channels);
  }
  const source = new AudioFrame(mono, audio.sampleRate, 1, count);
  const resampled =
    audio.sampleRate === sampleRate
      ? [source]
      : (() => {
          const resampler = new AudioResampler(audio.sampleRate, sampleRate, 1);
          return [...resampler.push(source), ...resampler.flush()];
        })();
  const chunker = new AudioByteStream(sampleRate, 1, (sampleRate * frameMs) / 1000);
  const frames = resampled.flatMap((f) =>
    chunker.write(Uint8Array.from(new Uint8Array(f.data.buffer, f.data.byteOffset, f.data.byteLength)).buffer),
  );
  return [...frames, ...chunker.flush()].map(ownFrame);
}

/**
 * Runs one speaker pipeline over a recorded file: `translate:file`, the tests and the benchmark.
 * The speaker speaks `from`; the room holds `from` and `to` (dual mode).
 */
export async function translateFile(options: FileTranslationOptions): Promise<FileTranslationDetail> {
  const { sampleRate } = options;
  const frameMs = options.frameMs ?? 10;
  const transcripts: TranscriptSegment[] = [];
  const translations: TranslationSegment[] = [];
  const segments: FinalSegment[] = [];
  const captured: Int16Array[] = [];
  const frameRates = new Set<number>();
  let firstAudioAt: number | null = null;
  let firstFinalAt: number | null = null;
  const output = new LanguageOutput();
  output.setSink({
    sampleRate,
    captureFrame: async (frame) => {
      firstAudioAt ??= performance.now();
      frameRates.add(frame.sampleRate);
      captured.push(frame.data.slice(0, frame.samplesPerChannel));
    },
  });
  const outputs: TranslationOutputs = {
    transcript: async (s) => {
      transcripts.push(s);
      if (s.final) firstFinalAt ??= performance.now();
      await options.captions?.transcript(s);
    },
    translation: async (s) => {
      translations.push(s);
      await options.captions?.translation(s);
    },
    play: (target, frames) => (target === options.to ? output.play(frames) : Promise.resolve()),
    segment: async (s) => {
      segments.push(s);
      await options.report?.(s);
    },
  };
  const pipeline = new SpeakerPipeline({
    providers: options.providers,
    mode: 'dual',
    roomLanguages: [options.from, options.to],
    speaker: { identity: options.identity ?? 'file', languages: [options.from], trackSid: 'TR_file' },
    segmentPrefix: options.segmentPrefix ?? 'file',
    outputs,
    latency: new LatencyTracker(),
    onError: options.onError,
    observer: options.observer,
  });
  const running = pipeline.run();

  const samplesPerFrame = (sampleRate * frameMs) / 1000;
  const silence = (ms: number) =>
    Array.from({ length: Math.ceil(ms / frameMs) }, () => new AudioFrame(new Int16Array(samplesPerFrame), sampleRate, 1, samplesPerFrame));
  const lead = silence(options.leadingSilenceMs ?? 1000);
  const frames = [...lead, ...deliveredFrames(options.audio, sampleRate, frameMs), ...silence(options.trailingSilenceMs ?? 1500)];
  const startedAt = performance.now();
  for (let i = 0; i < frames.length; i += 1) {
    if (options.paced !== false) {
      const due = startedAt + i * frameMs;
      const wait = due - performance.now();
      if (wait > 1) await sleep(wait);
    }
    pipeline.pushFrame(frames[i]!);
  }
  pipeline.close();
  await running;

  const outputSamples = captured.reduce((n, c) => n + c.length, 0);
  const audio = new Int16Array(outputSamples);
  let at = 0;
  for (const chunk of captured) {
    audio.set(chunk, at);
    at += chunk.length;
  }
  const finals = transcripts.filter((t) => t.final);
  const firstEnd = finals[0]?.audioEndTime;
  // Paced, the end of speech at t seconds of audio was pushed t seconds after the start.
  const speechEndAt = firstEnd !== undefined && options.paced !== false ? startedAt + firstEnd * 1000 : firstFinalAt;
  const firstUtterance =
    speechEndAt !== null && firstFinalAt !== null && firstAudioAt !== null ? { speechEndAt, finalAt: firstFinalAt, firstAudioAt } : null;
  return {
    result: {
      transcript: finals.map((t) => t.text).join(' '),
      translation: translations.map((t) => t.text).join(' '),
      input_seconds: round(options.audio.samples.length / options.audio.channels / options.audio.sampleRate),
      output_seconds: round(outputSamples / sampleRate),
      first_audio_ms: firstUtterance ? Math.round(firstUtterance.firstAudioAt - firstUtterance.speechEndAt) : null,
    },
    audio,
    sampleRate,
    frameRates: [...frameRates],
    transcripts,
    translations,
    segments,
    firstUtterance,
  };
}

function round(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}
