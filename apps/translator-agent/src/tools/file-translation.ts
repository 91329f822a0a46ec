/**
 * One speaker pipeline over a recorded file, fed as LiveKit delivers a track: `translate:file`, the
 * tests, the bench and the capacity calibration. Longer than ~300 lines on purpose: its options and the
 * result it reports (each field of translate:file's JSON, documented where it is defined) are most of it.
 */
import type { RoomGlossaries } from '@app/contracts';
import { AudioByteStream } from '@livekit/agents';
import { AudioFrame } from '@livekit/rtc-node';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { ownFrame } from '../translation/frames';
import { LanguageOutput } from '../translation/language-output';
import { LatencyTracker } from '../translation/latency-tracker';
import { RealtimeSpeakerPipeline } from '../translation/realtime/realtime-speaker-pipeline';
import { GlossaryHolder } from '../translation/room-glossaries';
import type { RealtimeSessionOptions } from '../translation/realtime/translation-session';
import { SpeakerPipeline } from '../translation/speaker-pipeline';
import type { FinalSegment, SpeakerStream, TranscriptSegment, TranslationOutputs, TranslationSegment } from '../translation/speaker-stream';
import type { SpeechProviders } from '../translation/speech-providers';
import { SincResampler } from '../local/sinc-resampler';
import type { PipelineObserver } from '../metrics/agent-metrics';
import type { ChunkPolicy } from '../translation/stable-chunks';
import type { StreamStatus } from '../translation/translator-status';
import { summarizeWordLag, type SpokenChunk, type WordLagSummary } from '../translation/word-lag';
import { RealTimeSink } from './real-time-sink';
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
  /**
   * Push frames in real time, as from a microphone (default); false pushes them as fast as taken, and
   * then no speech is dropped as late (the 3 s bound measures against a speaker's real time).
   */
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
  /** Simultaneous mode's chunk policy; null or absent: sentence mode. */
  simultaneous?: ChunkPolicy | null;
  /**
   * The speaker through a hosted speech-to-speech session instead of `providers`' stages
   * (`TRANSLATOR_PIPELINE=openai-realtime`); with `fallback`, the stages take over if it is given up.
   */
  realtime?: (RealtimeSessionOptions & { fallback?: boolean }) | null;
  /** The speaker's status when the realtime session fails (reconnecting, fallback, unavailable): stderr in `translate:file`. */
  onStatus?: (status: StreamStatus) => void;
  /** The room's glossaries, applied as a room's translator applies them (`--room`, `--glossary`). */
  glossaries?: RoomGlossaries;
}

export interface FileTranslation {
  transcript: string;
  translation: string;
  input_seconds: number;
  output_seconds: number;
  /**
   * End of the first utterance's speech in the input → its first translated audio frame, or null when
   * nothing was said. Simultaneous mode: end of the first chunk's speech → its first frame. Realtime:
   * the first segment's first delta → its first frame.
   */
  first_audio_ms: number | null;
  /**
   * Each recognized word's start → the first frame of the translated speech carrying it, over all
   * spoken words; null when nothing was spoken or the input was not fed in real time (`paced: false`).
   * Realtime (no word times in the protocol): per segment, the onset of the speech it translates (the
   * input's first voiced frame after a pause) → its first translated frame, i.e. each segment's first word.
   */
  word_lag_ms: Omit<WordLagSummary, 'words'> | null;
  /** Pieces of translated speech: utterances in sentence mode, chunks in simultaneous mode. */
  chunks_spoken: number;
  /** The end of the input → the end of the translated speech as played out in real time; null unpaced. */
  speech_end_after_input_ms: number | null;
  /**
   * The words sent to translation, in order: what the listener heard translated. Simultaneous mode: the
   * committed chunks' words; sentence mode (and a realtime session): the transcript.
   */
  committed_text: string;
  /** Words sent to translation that the final recognition replaced or dropped (simultaneous mode). */
  revised_words: number;
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
  /** Each piece of translated speech as it began, with its words' start times (epoch ms). */
  spoken: SpokenChunk[];
  /**
   * The order things happened in: `final:<segment id>` for a final transcript, `translation:<segment id>`
   * for a translation caption, `spoken` for a piece's first frame.
   */
  events: string[];
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
  // Deterministic (no dither): the same file gives the same frames, run after run.
  const resampler = audio.sampleRate === sampleRate ? null : new SincResampler(audio.sampleRate, sampleRate);
  const pcm = resampler ? Int16Array.from([...resampler.push(mono), ...resampler.flush()]) : mono;
  const resampled = [new AudioFrame(pcm, sampleRate, 1, pcm.length)];
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
  const spoken: SpokenChunk[] = [];
  let firstPieceMs: number | undefined;
  const events: string[] = [];
  const paced = options.paced !== false;
  const output = new LanguageOutput();
  const capture = (frame: AudioFrame) => {
    firstAudioAt ??= performance.now();
    frameRates.add(frame.sampleRate);
    captured.push(frame.data.slice(0, frame.samplesPerChannel));
  };
  // Paced, the track plays in real time (a backlog of speech shows); unpaced, as fast as produced.
  const sink = paced ? new RealTimeSink(sampleRate, capture) : null;
  output.setSink(sink ?? { sampleRate, captureFrame: async (frame) => capture(frame) });
  const observer: PipelineObserver | undefined = options.observer;
  const watching: PipelineObserver = {
    firstAudio: (source, target, ms) => {
      firstPieceMs ??= Math.round(ms);
      observer?.firstAudio(source, target, ms);
    },
    stage: (stage, ms) => observer?.stage(stage, ms),
    utterance: (outcome, reason) => observer?.utterance(outcome, reason),
    recognitionRestart: () => observer?.recognitionRestart(),
    providerError: (stage, recoverable) => observer?.providerError(stage, recoverable),
    glossaryUnapplied: (pipeline) => observer?.glossaryUnapplied?.(pipeline),
    revisedWords: (source, target, count) => observer?.revisedWords?.(source, target, count),
    spokenChunk: (source, target, chunk) => {
      spoken.push(chunk);
      events.push('spoken');
      observer?.spokenChunk?.(source, target, chunk);
    },
  };
  const outputs: TranslationOutputs = {
    transcript: async (s) => {
      transcripts.push(s);
      if (s.final) {
        firstFinalAt ??= performance.now();
        events.push(`final:${s.segmentId}`);
      }
      await options.captions?.transcript(s);
    },
    translation: async (s) => {
      translations.push(s);
      events.push(`translation:${s.segmentId}`);
      await options.captions?.translation(s);
    },
    play: (target, frames) => (target === options.to ? output.play(frames) : Promise.resolve()),
    segment: async (s) => {
      segments.push(s);
      await options.report?.(s);
    },
  };
  const common = {
    mode: 'dual' as const,
    roomLanguages: [options.from, options.to] as const,
    speaker: { identity: options.identity ?? 'file', languages: [options.from], trackSid: 'TR_file' },
    segmentPrefix: options.segmentPrefix ?? 'file',
    outputs,
    latency: new LatencyTracker(),
    onError: options.onError,
    observer: watching,
    glossaries: new GlossaryHolder(options.glossaries),
  };
  const composed = (segmentPrefix = common.segmentPrefix) =>
    new SpeakerPipeline({
      ...common,
      segmentPrefix,
      providers: options.providers,
      simultaneous: options.simultaneous ?? null,
      // Unpaced, the audio goes in far faster than it was spoken: how late speech starts has no meaning, none is dropped as late.
      ...(paced ? {} : { maxSpeechDelayMs: Number.POSITIVE_INFINITY }),
    });
  const { realtime } = options;
  const pipeline: SpeakerStream = realtime
    ? new RealtimeSpeakerPipeline({
        ...common,
        session: realtime,
        fallback: realtime.fallback ? () => composed(`${common.segmentPrefix}-fb`) : null,
        onStatus: options.onStatus,
      })
    : composed();
  const running = pipeline.run();

  const samplesPerFrame = (sampleRate * frameMs) / 1000;
  const silence = (ms: number) =>
    Array.from({ length: Math.ceil(ms / frameMs) }, () => new AudioFrame(new Int16Array(samplesPerFrame), sampleRate, 1, samplesPerFrame));
  const lead = silence(options.leadingSilenceMs ?? 1000);
  const frames = [...lead, ...deliveredFrames(options.audio, sampleRate, frameMs), ...silence(options.trailingSilenceMs ?? 1500)];
  const startedAt = performance.now();
  const inputEndsAt =
    Date.now() + (lead.length * frameMs + (options.audio.samples.length / options.audio.channels / options.audio.sampleRate) * 1000);
  for (let i = 0; i < frames.length; i += 1) {
    if (paced) {
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
      // A segment's translation caption grows chunk by chunk (simultaneous mode): its last text is the whole.
      translation: [...new Map(translations.map((t) => [t.segmentId, t.text])).values()].join(' '),
      input_seconds: round(options.audio.samples.length / options.audio.channels / options.audio.sampleRate),
      output_seconds: round(outputSamples / sampleRate),
      first_audio_ms:
        options.simultaneous || realtime
          ? (firstPieceMs ?? null)
          : firstUtterance
            ? Math.round(firstUtterance.firstAudioAt - firstUtterance.speechEndAt)
            : null,
      word_lag_ms: paced ? lagOf(spoken) : null,
      chunks_spoken: spoken.length,
      speech_end_after_input_ms: sink && sink.endsAt > 0 ? Math.round(sink.endsAt - inputEndsAt) : null,
      committed_text: segments.map((s) => s.committed?.text ?? s.text).join(' '),
      revised_words: segments.reduce((n, s) => n + (s.committed?.revisedWords.length ?? 0), 0),
    },
    audio,
    sampleRate,
    frameRates: [...frameRates],
    transcripts,
    translations,
    segments,
    firstUtterance,
    spoken,
    events,
  };
}

function lagOf(spoken: SpokenChunk[]): FileTranslation['word_lag_ms'] {
  const summary = summarizeWordLag(spoken);
  return summary ? { p50: summary.p50, p95: summary.p95, max: summary.max } : null;
}

function round(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}
