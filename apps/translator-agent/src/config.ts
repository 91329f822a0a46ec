/**
 * The agent's configuration, read from the environment once at start. A missing provider key is
 * not an exception: `--check` and start-up print one line saying what to set.
 */
export interface SpeechPipelineConfig {
  /** `openai`: a streaming OpenAI STT, an LLM translation step and OpenAI TTS (sentence-level). */
  provider: 'openai';
  apiKey: string;
  /** OpenAI-compatible base URL (a gateway or proxy); empty means OpenAI's own. */
  baseUrl: string | undefined;
  sttModel: string;
  llmModel: string;
  ttsModel: string;
  ttsVoice: string;
}

export interface AgentConfig {
  redisUrl: string;
  queuePrefix: string;
  logLevel: string;
  livekit: { wsUrl: string; apiUrl: string; apiKey: string; apiSecret: string };
  pipeline: SpeechPipelineConfig;
  /** How often each direction's latency is reported to the API, in milliseconds. */
  statsIntervalMs: number;
}

export type ConfigResult = { ok: true; config: AgentConfig } | { ok: false; problem: string };

const PIPELINES = ['openai'] as const;

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

export function loadAgentConfig(env: NodeJS.ProcessEnv): ConfigResult {
  const provider = nonEmpty(env.TRANSLATOR_PIPELINE) ?? 'openai';
  if (!(PIPELINES as readonly string[]).includes(provider)) {
    return { ok: false, problem: `TRANSLATOR_PIPELINE must be one of: ${PIPELINES.join(', ')} (got "${provider}").` };
  }
  const apiKey = nonEmpty(env.OPENAI_API_KEY);
  if (!apiKey) {
    return { ok: false, problem: 'no speech pipeline is configured: set OPENAI_API_KEY (see "Translator agent" in the README).' };
  }
  const statsIntervalMs = Number(nonEmpty(env.TRANSLATOR_STATS_INTERVAL_MS) ?? '30000');
  if (!Number.isInteger(statsIntervalMs) || statsIntervalMs < 1000) {
    return { ok: false, problem: 'TRANSLATOR_STATS_INTERVAL_MS must be an integer of at least 1000.' };
  }
  const livekitUrl = nonEmpty(env.LIVEKIT_URL) ?? 'ws://127.0.0.1:7880';
  const apiUrl = nonEmpty(env.LIVEKIT_API_URL) ?? toHttp(livekitUrl);
  return {
    ok: true,
    config: {
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
        provider: 'openai',
        apiKey,
        baseUrl: nonEmpty(env.OPENAI_BASE_URL),
        sttModel: nonEmpty(env.TRANSLATOR_STT_MODEL) ?? 'gpt-4o-mini-transcribe',
        llmModel: nonEmpty(env.TRANSLATOR_LLM_MODEL) ?? 'gpt-4.1-mini',
        ttsModel: nonEmpty(env.TRANSLATOR_TTS_MODEL) ?? 'gpt-4o-mini-tts',
        ttsVoice: nonEmpty(env.TRANSLATOR_TTS_VOICE) ?? 'alloy',
      },
      statsIntervalMs,
    },
  };
}
