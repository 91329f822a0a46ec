/**
 * The agent's configuration, read from the environment once at start. A missing provider key or
 * engine is not an exception: `--check` and start-up print one line saying what to set or install.
 */
import { detectLocalEngines, type LocalEngines, type LocalEnginesResult } from './local/local-engines';

export const STT_PROVIDERS = ['openai', 'deepgram', 'local'] as const;
export const TRANSLATION_PROVIDERS = ['openai', 'local'] as const;
export const TTS_PROVIDERS = ['openai', 'elevenlabs', 'local'] as const;
/** When translated speech starts: while the speaker goes on (stable chunks), or after each utterance. */
export const TIMINGS = ['simultaneous', 'sentence'] as const;
export type Timing = (typeof TIMINGS)[number];

export interface SpeechPipelineConfig {
  /** Streaming recognition: OpenAI realtime transcription, Deepgram, or PocketSphinx. */
  stt: (typeof STT_PROVIDERS)[number];
  /** Text translation: an OpenAI chat model, or Apertium. */
  translation: (typeof TRANSLATION_PROVIDERS)[number];
  /** Speech: OpenAI TTS per sentence, ElevenLabs streaming, or eSpeak NG per sentence. */
  tts: (typeof TTS_PROVIDERS)[number];
  openai: { apiKey: string; baseUrl: string | undefined; sttModel: string; llmModel: string; ttsModel: string; ttsVoice: string } | null;
  deepgram: { apiKey: string; model: string } | null;
  elevenlabs: { apiKey: string; voiceId: string | undefined; model: string } | null;
  /** The Debian engines, when any stage is local. */
  local: LocalEngines | null;
  /**
   * `TRANSLATOR_TIMING`: simultaneous needs a recognizer that gives word times in its partial
   * hypotheses (PocketSphinx); with a hosted recognizer it is always `sentence`.
   */
  timing: Timing;
  /**
   * `TRANSLATOR_PIPELINE=openai-realtime`: each speaker goes through OpenAI's realtime translation
   * session (speech to speech) instead of the three stages; null otherwise. `fallback`
   * (`TRANSLATOR_REALTIME_FALLBACK=stages`, the default; `none`): a speaker whose session is given up
   * (no key, refused, dropped or stalled too often) is served by the three stages above instead.
   */
  realtime: { baseUrl: string; model: string; transcriptionModel: string; fallback: boolean } | null;
}

export interface AgentConfig {
  redisUrl: string;
  queuePrefix: string;
  logLevel: string;
  livekit: { wsUrl: string; apiUrl: string; apiKey: string; apiSecret: string };
  pipeline: SpeechPipelineConfig;
  /** How often each direction's latency is reported to the API, in milliseconds. */
  statsIntervalMs: number;
  /** Rooms one worker process serves at most; LiveKit assigns no more once they run. */
  maxJobs: number;
  /** Speaker streams served in full (speech) per worker; null: measured by a calibration at start. */
  streamCapacity: number | null;
  /** Port of the agent's Prometheus metrics (`GET /metrics`); null: not served. */
  metricsPort: number | null;
  /** Port of agents-js's health server (`GET /` and `/worker`); null: agents-js's default (8081 in production). */
  healthPort: number | null;
  /** How long a draining worker lets rooms finish before it exits anyway. */
  drainTimeoutMs: number;
  /** How long the agent stays in a room that holds fewer than two languages before leaving by itself. */
  leaveAfterMs: number;
}

export type ConfigResult = { ok: true; config: AgentConfig } | { ok: false; problem: string };

const PIPELINES = ['openai', 'local', 'openai-realtime'] as const;

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

function toHttp(url: string): string {
  return url.replace(/^ws(s?):\/\//, 'http$1://');
}

function toWs(url: string): string {
  return url.replace(/^http(s?):\/\//, 'ws$1://');
}

/** A bad setting: the one line start-up prints. */
class ConfigProblem extends Error {}

function pick<T extends string>(env: NodeJS.ProcessEnv, name: string, allowed: readonly T[], fallback: T): T {
  const value = nonEmpty(env[name]) ?? fallback;
  if (!(allowed as readonly string[]).includes(value))
    throw new ConfigProblem(`${name} must be one of: ${allowed.join(', ')} (got "${value}").`);
  return value as T;
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const value = Number(nonEmpty(env[name]) ?? String(fallback));
  if (!Number.isInteger(value) || value < min || value > max)
    throw new ConfigProblem(
      `${name} must be an integer ${max === Number.MAX_SAFE_INTEGER ? `of at least ${min}` : `from ${min} to ${max}`}.`,
    );
  return value;
}

function optionalInteger(env: NodeJS.ProcessEnv, name: string, min: number, max?: number): number | null {
  return nonEmpty(env[name]) === undefined ? null : integer(env, name, min, min, max);
}

/**
 * `TRANSLATOR_PIPELINE` sets every stage (`openai`, the default when `OPENAI_API_KEY` is set, else
 * `local`); `TRANSLATOR_STT`, `TRANSLATOR_TRANSLATION`, `TRANSLATOR_TTS` override one stage each.
 */
export function loadAgentConfig(env: NodeJS.ProcessEnv, detect: () => LocalEnginesResult = detectLocalEngines): ConfigResult {
  try {
    return { ok: true, config: readConfig(env, detect) };
  } catch (error) {
    if (error instanceof ConfigProblem) return { ok: false, problem: error.message };
    throw error;
  }
}

function readConfig(env: NodeJS.ProcessEnv, detect: () => LocalEnginesResult): AgentConfig {
  const openaiKey = nonEmpty(env.OPENAI_API_KEY);
  const pipeline = pick(env, 'TRANSLATOR_PIPELINE', PIPELINES, openaiKey ? 'openai' : 'local');
  // The realtime session replaces the stages; they stay OpenAI's for what asks them (language support).
  const base = pipeline === 'openai-realtime' ? 'openai' : pipeline;
  const stages = {
    stt: pick(env, 'TRANSLATOR_STT', STT_PROVIDERS, base),
    translation: pick(env, 'TRANSLATOR_TRANSLATION', TRANSLATION_PROVIDERS, base),
    tts: pick(env, 'TRANSLATOR_TTS', TTS_PROVIDERS, base),
  };
  const uses = (provider: string) => Object.values(stages).includes(provider as never);

  const realtimeFallback =
    pipeline === 'openai-realtime' && pick(env, 'TRANSLATOR_REALTIME_FALLBACK', ['stages', 'none'], 'stages') === 'stages';
  // Without the key the session cannot open: allowed only when stages without OpenAI take every speaker over.
  if (pipeline === 'openai-realtime' && !openaiKey && (uses('openai') || !realtimeFallback)) {
    throw new ConfigProblem(
      "TRANSLATOR_PIPELINE=openai-realtime uses OpenAI's realtime translation: set OPENAI_API_KEY (or fall back to local stages: TRANSLATOR_STT=local TRANSLATOR_TRANSLATION=local TRANSLATOR_TTS=local).",
    );
  }
  if (uses('openai') && !openaiKey) {
    throw new ConfigProblem(
      `the ${stageNames(stages, 'openai')} stage uses OpenAI: set OPENAI_API_KEY (see "Translator agent" in the README).`,
    );
  }
  const deepgramKey = nonEmpty(env.DEEPGRAM_API_KEY);
  if (uses('deepgram') && !deepgramKey) throw new ConfigProblem('TRANSLATOR_STT=deepgram needs DEEPGRAM_API_KEY.');
  const elevenKey = nonEmpty(env.ELEVEN_API_KEY);
  if (uses('elevenlabs') && !elevenKey) throw new ConfigProblem('TRANSLATOR_TTS=elevenlabs needs ELEVEN_API_KEY.');
  const statsIntervalMs = integer(env, 'TRANSLATOR_STATS_INTERVAL_MS', 30_000, 1000);
  const maxJobs = integer(env, 'TRANSLATOR_MAX_JOBS', 4, 1);
  const streamCapacity = optionalInteger(env, 'TRANSLATOR_STREAM_CAPACITY', 1);
  const metricsPort = optionalInteger(env, 'AGENT_METRICS_PORT', 1, 65_535);
  // Two agents on one host need two; agents-js reads a port of 0 as "its default", so 0 is refused.
  const healthPort = optionalInteger(env, 'AGENT_HEALTH_PORT', 1, 65_535);
  const drainTimeoutMs = integer(env, 'TRANSLATOR_DRAIN_TIMEOUT_MS', 60_000, 1000);
  const leaveAfterMs = integer(env, 'TRANSLATOR_LEAVE_AFTER_MS', 15_000, 0);
  let local: LocalEngines | null = null;
  if (uses('local')) {
    const found = detect();
    if (!found.ok) throw new ConfigProblem(found.problem);
    local = found.engines;
  }
  const livekitUrl = nonEmpty(env.LIVEKIT_URL) ?? 'ws://127.0.0.1:7880';
  const apiUrl = nonEmpty(env.LIVEKIT_API_URL) ?? toHttp(livekitUrl);
  return {
    redisUrl: nonEmpty(env.REDIS_URL) ?? 'redis://127.0.0.1:6379',
    queuePrefix: nonEmpty(env.QUEUE_PREFIX) ?? 'trk',
    logLevel: nonEmpty(env.LOG_LEVEL) ?? 'info',
    livekit: {
      // The agent joins rooms from inside the deployment, so it prefers the internal API address.
      wsUrl: nonEmpty(env.LIVEKIT_AGENT_URL) ?? toWs(apiUrl),
      apiUrl,
      apiKey: nonEmpty(env.LIVEKIT_API_KEY) ?? 'devkey',
      apiSecret: nonEmpty(env.LIVEKIT_API_SECRET) ?? 'secret',
    },
    pipeline: {
      ...stages,
      openai: openaiKey
        ? {
            apiKey: openaiKey,
            baseUrl: nonEmpty(env.OPENAI_BASE_URL),
            sttModel: nonEmpty(env.TRANSLATOR_STT_MODEL) ?? 'gpt-4o-mini-transcribe',
            llmModel: nonEmpty(env.TRANSLATOR_LLM_MODEL) ?? 'gpt-4.1-mini',
            ttsModel: nonEmpty(env.TRANSLATOR_TTS_MODEL) ?? 'gpt-4o-mini-tts',
            ttsVoice: nonEmpty(env.TRANSLATOR_TTS_VOICE) ?? 'alloy',
          }
        : null,
      deepgram: deepgramKey ? { apiKey: deepgramKey, model: nonEmpty(env.DEEPGRAM_MODEL) ?? 'nova-3' } : null,
      elevenlabs: elevenKey
        ? { apiKey: elevenKey, voiceId: nonEmpty(env.ELEVEN_VOICE_ID), model: nonEmpty(env.ELEVEN_MODEL) ?? 'eleven_flash_v2_5' }
        : null,
      local,
      timing: stages.stt === 'local' ? pick(env, 'TRANSLATOR_TIMING', TIMINGS, 'simultaneous') : 'sentence',
      realtime:
        pipeline === 'openai-realtime'
          ? {
              baseUrl: nonEmpty(env.OPENAI_BASE_URL) ?? 'https://api.openai.com/v1',
              model: nonEmpty(env.TRANSLATOR_REALTIME_MODEL) ?? 'gpt-realtime-translate',
              transcriptionModel: nonEmpty(env.TRANSLATOR_REALTIME_TRANSCRIPTION_MODEL) ?? 'gpt-realtime-whisper',
              fallback: realtimeFallback,
            }
          : null,
    },
    statsIntervalMs,
    maxJobs,
    streamCapacity,
    metricsPort,
    healthPort,
    drainTimeoutMs,
    leaveAfterMs,
  };
}

function stageNames(stages: Record<string, string>, provider: string): string {
  return Object.entries(stages)
    .filter(([, p]) => p === provider)
    .map(([stage]) => stage)
    .join(' and ');
}

/** `stt=local translation=local tts=local`: what `--check` and the start line print. */
export function describePipeline(p: SpeechPipelineConfig): string {
  const local = p.local ? `; local: en → ${p.local.targets.join(', ')}` : '';
  if (p.realtime)
    return (
      `realtime translation=${p.realtime.model} (source captions: ${p.realtime.transcriptionModel}); ` +
      (p.realtime.fallback ? `fallback: stt=${p.stt} translation=${p.translation} tts=${p.tts}` : 'no fallback')
    );
  return `stt=${p.stt} translation=${p.translation} tts=${p.tts}${local}; timing=${p.timing}`;
}
