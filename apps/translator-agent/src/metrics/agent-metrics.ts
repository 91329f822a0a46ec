import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { SpokenChunk } from '../translation/word-lag';

export type Stage = 'recognition' | 'translation' | 'synthesis';

/** Why a hosted speech-to-speech session failed: no key configured, refused, no answer to speech, connection lost. */
export type RealtimeFailureReason = 'missing_key' | 'refused' | 'stalled' | 'dropped';
/** What followed: opened again, the composed pipeline took over, or the speaker went untranslated (the status says why). */
export type RealtimeFailureOutcome = 'retried' | 'fallback' | 'unavailable';

/** What a speaker pipeline reports as it works (the metrics below; nothing in tests that pass none). */
export interface PipelineObserver {
  /** End of an utterance's speech → its first translated audio frame. */
  firstAudio(source: string, target: string, ms: number): void;
  stage(stage: Stage, ms: number): void;
  /** A chunk of translated speech (a whole utterance in sentence mode) began: its words' start times and its first frame's (word lag). */
  spokenChunk?(source: string, target: string, chunk: SpokenChunk): void;
  /** An utterance not translated on its own: merged into the one before it, or its speech dropped. */
  utterance(outcome: 'merged' | 'dropped', reason: 'backlog' | 'late' | 'captions_only'): void;
  recognitionRestart(): void;
  /** A provider's error event; a recoverable one is retried by agents-js. */
  providerError(stage: 'stt' | 'translation' | 'tts' | 'realtime', recoverable: boolean): void;
  /** A hosted speech-to-speech session failed, why, and what followed. */
  realtimeFailure?(reason: RealtimeFailureReason, outcome: RealtimeFailureOutcome): void;
  /** A segment translated without the room's glossary for its direction: the pipeline takes none. */
  glossaryUnapplied?(pipeline: 'realtime'): void;
  /** Simultaneous mode: words translated (and spoken) before the final recognition replaced or dropped them. */
  revisedWords?(source: string, target: string, count: number): void;
  /** A direction of a room's pair that the preferred pipeline does not cover, and the one serving it instead (`none`). */
  directionFallback?(from: string, to: string): void;
}

const LATENCY_BUCKETS = [0.25, 0.5, 0.75, 1, 1.25, 1.5, 2, 2.5, 3, 5, 10];

/**
 * The agent's Prometheus series (`translator_*`), one registry per process: each job process fills
 * its own and sends it to the worker process, which serves their sum on AGENT_METRICS_PORT.
 */
export class AgentMetrics implements PipelineObserver {
  readonly registry = new Registry();

  readonly firstAudioSeconds = new Histogram({
    name: 'translator_first_audio_seconds',
    help: 'End of an utterance to its first translated audio frame, by direction',
    labelNames: ['from', 'to'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });

  readonly wordLagSeconds = new Histogram({
    name: 'translator_word_lag_seconds',
    help: "A recognized word's start to the first frame of the translated speech carrying it, by direction",
    labelNames: ['from', 'to'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });

  readonly stageSeconds = new Histogram({
    name: 'translator_stage_duration_seconds',
    help: 'Time in each stage: recognition (end of speech to final transcript), translation (the whole call), synthesis (request to first audio)',
    labelNames: ['stage'] as const,
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 5],
    registers: [this.registry],
  });

  readonly utterances = new Counter({
    name: 'translator_utterances_total',
    help: 'Utterances not translated on their own: merged into the previous one (backlog) or whose speech was dropped (late, captions_only)',
    labelNames: ['outcome', 'reason'] as const,
    registers: [this.registry],
  });

  readonly providerErrors = new Counter({
    name: 'translator_provider_errors_total',
    help: 'Errors reported by a provider, by stage (stt, translation, tts; realtime: the speech-to-speech session)',
    labelNames: ['stage'] as const,
    registers: [this.registry],
  });

  readonly providerRetries = new Counter({
    name: 'translator_provider_retries_total',
    help: 'Provider calls retried after a recoverable error, by stage',
    labelNames: ['stage'] as const,
    registers: [this.registry],
  });

  readonly realtimeFailures = new Counter({
    name: 'translator_realtime_failures_total',
    help: 'Realtime translation sessions that failed, by reason (missing_key, refused, stalled, dropped) and outcome (retried, fallback, unavailable)',
    labelNames: ['reason', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly glossaryUnappliedSegments = new Counter({
    name: 'translator_glossary_unapplied_segments_total',
    help: "Segments translated without the room's glossary for their direction, by pipeline (realtime: the speech-to-speech session takes none)",
    labelNames: ['pipeline'] as const,
    registers: [this.registry],
  });

  readonly revisedWordsTotal = new Counter({
    name: 'translator_revised_words_total',
    help: 'Simultaneous mode: words committed to translation (so heard) that the final recognition replaced or dropped, by direction',
    labelNames: ['from', 'to'] as const,
    registers: [this.registry],
  });

  readonly directionFallbacks = new Counter({
    name: 'translator_direction_fallbacks_total',
    help: "Directions of a room's pair the preferred pipeline does not cover (its provider's languages), by that pipeline and the one serving them instead (none: untranslated)",
    labelNames: ['from_pipeline', 'to_pipeline'] as const,
    registers: [this.registry],
  });

  readonly recognitionRestarts = new Counter({
    name: 'translator_recognition_restarts_total',
    help: 'Speech recognition streams opened again after they ended',
    registers: [this.registry],
  });

  firstAudio(source: string, target: string, ms: number): void {
    this.firstAudioSeconds.observe({ from: source, to: target }, ms / 1000);
  }

  spokenChunk(source: string, target: string, chunk: SpokenChunk): void {
    for (const start of chunk.wordStarts)
      this.wordLagSeconds.observe({ from: source, to: target }, Math.max(0, chunk.firstFrameAt - start) / 1000);
  }

  stage(stage: Stage, ms: number): void {
    this.stageSeconds.observe({ stage }, Math.max(0, ms) / 1000);
  }

  utterance(outcome: 'merged' | 'dropped', reason: 'backlog' | 'late' | 'captions_only'): void {
    this.utterances.inc({ outcome, reason });
  }

  recognitionRestart(): void {
    this.recognitionRestarts.inc();
  }

  providerError(stage: 'stt' | 'translation' | 'tts' | 'realtime', recoverable: boolean): void {
    this.providerErrors.inc({ stage });
    if (recoverable) this.providerRetries.inc({ stage });
  }

  realtimeFailure(reason: RealtimeFailureReason, outcome: RealtimeFailureOutcome): void {
    this.realtimeFailures.inc({ reason, outcome });
  }

  glossaryUnapplied(pipeline: 'realtime'): void {
    this.glossaryUnappliedSegments.inc({ pipeline });
  }

  revisedWords(source: string, target: string, count: number): void {
    this.revisedWordsTotal.inc({ from: source, to: target }, count);
  }

  directionFallback(from: string, to: string): void {
    this.directionFallbacks.inc({ from_pipeline: from, to_pipeline: to });
  }
}

/** The worker process's own series: its load as reported to LiveKit, its rooms, streams and capacity. */
export class WorkerMetrics {
  readonly registry = new Registry();

  readonly load = new Gauge({
    name: 'translator_load',
    help: 'Load reported to LiveKit (at 1 the worker is full: no new rooms are assigned to it)',
    registers: [this.registry],
  });

  readonly activeRooms = new Gauge({
    name: 'translator_active_rooms',
    help: 'Rooms being translated (job processes running)',
    registers: [this.registry],
  });

  constructor(streams: () => { full: number; captions: number }, capacity: number) {
    new Gauge({
      name: 'translator_active_streams',
      help: 'Speaker streams being served, by service (full: captions and speech; captions: captions only, beyond capacity)',
      labelNames: ['service'] as const,
      registers: [this.registry],
      collect() {
        const { full, captions } = streams();
        this.set({ service: 'full' }, full);
        this.set({ service: 'captions' }, captions);
      },
    });
    new Gauge({
      name: 'translator_stream_capacity',
      help: 'Speaker streams this worker serves in full (calibrated at start, or TRANSLATOR_STREAM_CAPACITY)',
      registers: [this.registry],
    }).set(capacity);
  }
}
