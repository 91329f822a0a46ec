/**
 * The LiveKit agent (`translator`): what runs in a job process once LiveKit assigns this worker a
 * dispatch. Default export for agents-js, which imports this file by path (WorkerOptions.agent).
 * The entry is the list of a job's steps; each step below is one function.
 */
import type { RoomGlossaries } from '@app/contracts';
import { AutoSubscribe, defineAgent, log, type JobContext } from '@livekit/agents';
import { LOAD_SOCKET_ENV, LoadChannelClient } from './capacity/load-channel';
import { unlimitedAdmission } from './capacity/stream-budget';
import { loadAgentConfig, type AgentConfig } from './config';
import { AgentMetrics } from './metrics/agent-metrics';
import { TranslatorEventsReporter } from './events/translator-events';
import { followGlossaries, type FollowedGlossaries } from './glossaries/followed-glossaries';
import { LanguageWatch } from './translation/language-watch';
import { LatencyTracker } from './translation/latency-tracker';
import { configuredPipelines, fallbackMessage } from './translation/direction-plan';
import { createLocalFallback, createSpeechProviders } from './translation/providers';
import { refusedReport, roomSupport } from './translation/room-support';
import { OUTPUT_SAMPLE_RATE, RoomTranslator, type RoomTranslatorOptions } from './translation/room-translator';
import type { SpeechProviders } from './translation/speech-providers';
import { chunkPolicyFor } from './translation/stable-chunks';

export interface TranslatorJobMetadata {
  roomId: string;
  languages: [string, string];
  mode: 'mono' | 'dual';
}

/** How often a room sends its metrics to the worker process, which serves them on AGENT_METRICS_PORT. */
const METRICS_PUSH_INTERVAL_MS = 5000;

type Logger = ReturnType<typeof log>;

/** What every step of one job works with: the job, its configuration, and what reports on it. */
interface TranslatorJob {
  ctx: JobContext;
  logger: Logger;
  config: AgentConfig;
  job: TranslatorJobMetadata;
  reporter: TranslatorEventsReporter;
  metrics: AgentMetrics;
  providers: SpeechProviders;
  /** The local pipeline beside hosted stages, for the directions they cannot serve; null when not installed or not needed. */
  local: SpeechProviders | null;
}

/** A report a step sends periodically until the job shuts down. */
interface Periodic {
  /** Stops the timer. */
  stop(): void;
  /** Sends it once more: its last word before the job ends, after the translator closed. */
  flush(): Promise<unknown>;
}

/** What a job has opened so far: each step fills its part, and `release` closes whatever is there. */
interface Held {
  channel?: LoadChannelClient | null;
  metricsPush?: Periodic;
  glossaries?: FollowedGlossaries;
  translator?: RoomTranslator;
  joined?: boolean;
  stopWatching?: () => void;
  latencyReports?: Periodic;
}

export default defineAgent({
  entry: async (ctx: JobContext) => {
    const job = openJob(ctx);
    if (!(await servesAnyDirection(job))) return leaveUnserved(job);
    // Registered before the first step that can fail (joining the room): agents-js runs the shutdown
    // callbacks after an entry that threw as well, and `release` closes what the steps opened until then.
    const held: Held = {};
    ctx.addShutdownCallback(() => release(job, held));
    const channel = (held.channel = await connectLoadChannel(job.logger));
    held.metricsPush = pushMetricsToWorker(job, channel);
    const latency = new LatencyTracker();
    const glossaries = (held.glossaries = await followGlossaries(job));
    const translator = (held.translator = roomTranslator(job, channel, latency, glossaries.latest()));
    await joinRoom(job, translator);
    held.joined = true;
    glossaries.applyTo(translator);
    held.stopWatching = leaveWhenDone(job, translator, channel);
    held.latencyReports = reportLatency(job, latency);
  },
});

/** Closes what the job opened, in the order a normal end needs (the last latency after the translator closed). */
async function release({ providers, local, reporter }: TranslatorJob, held: Held): Promise<void> {
  held.latencyReports?.stop();
  held.metricsPush?.stop();
  held.stopWatching?.();
  await held.glossaries?.close();
  await held.translator?.close();
  await providers.close?.();
  await local?.close?.();
  await held.latencyReports?.flush();
  if (held.joined) await reporter.left();
  await reporter.close();
  await held.metricsPush?.flush();
  await held.channel?.close();
}

export function parseJobMetadata(metadata: string): TranslatorJobMetadata {
  const parsed = JSON.parse(metadata) as Partial<TranslatorJobMetadata>;
  const { roomId, languages, mode } = parsed;
  if (typeof roomId !== 'string' || !Array.isArray(languages) || languages.length !== 2 || (mode !== 'mono' && mode !== 'dual')) {
    throw new Error(`translator job metadata is not {roomId, languages[2], mode}: ${metadata}`);
  }
  return { roomId, languages: [String(languages[0]), String(languages[1])], mode };
}

/** Reads the configuration and the job's metadata, and makes what reports on the job and the pipeline's providers. */
function openJob(ctx: JobContext): TranslatorJob {
  const logger = log();
  const loaded = loadAgentConfig(process.env);
  if (!loaded.ok) throw new Error(loaded.problem);
  const { config } = loaded;
  const job = parseJobMetadata(ctx.job.metadata);
  const reporter = new TranslatorEventsReporter(config.redisUrl, config.queuePrefix, {
    id: ctx.job.id,
    roomId: job.roomId,
    livekitRoom: ctx.job.room?.name ?? '',
  });
  const metrics = new AgentMetrics();
  const onError = (stage: 'stt' | 'translation' | 'tts', error: unknown, recoverable?: boolean) => {
    metrics.providerError(stage, recoverable ?? false);
    logger.warn({ error, stage, roomId: job.roomId }, 'translation provider error');
  };
  const providers = createSpeechProviders(config.pipeline, OUTPUT_SAMPLE_RATE, onError);
  const local = createLocalFallback(config.pipeline, OUTPUT_SAMPLE_RATE, onError);
  return { ctx, logger, config, job, reporter, metrics, providers, local };
}

/**
 * Logs the directions served by a pipeline other than the preferred one, logs and reports those none can
 * translate; whether any direction is left to serve. A realtime session counts only with a key (without one
 * every speaker goes to the stages).
 */
async function servesAnyDirection({ logger, config, job, reporter, providers, local }: TranslatorJob): Promise<boolean> {
  const realtime = config.pipeline.openai ? realtimeOptions(config) : null;
  const support = roomSupport(job.languages, configuredPipelines({ realtime, providers, local }));
  for (const choice of support.choices)
    if (choice.pipeline !== null && choice.passedOver.length > 0)
      logger.info({ roomId: job.roomId }, `translator: ${fallbackMessage(choice)}`);
  if (support.line) {
    logger.warn({ roomId: job.roomId, refused: support.refused }, support.line);
    await reporter.latency(support.refused.map(refusedReport)).catch((error: unknown) => logger.warn({ error }, 'report failed'));
  }
  return support.served.length > 0;
}

/** Ends a job that has nothing to translate without joining the room. */
async function leaveUnserved({ ctx, reporter, providers, local }: TranslatorJob): Promise<void> {
  await providers.close?.();
  await local?.close?.();
  await reporter.close();
  ctx.shutdown('language pair not supported by the pipeline');
}

/**
 * The worker's stream budget, shared by every room it runs: null when the job runs without that
 * worker (no socket in the environment) or cannot reach it, and then every speaker is served in full.
 */
export async function connectLoadChannel(logger: Pick<Logger, 'warn'>, env = process.env): Promise<LoadChannelClient | null> {
  const socket = env[LOAD_SOCKET_ENV];
  if (!socket) return null;
  return LoadChannelClient.connect(socket).catch((error: unknown) => {
    logger.warn({ error }, 'worker load channel unreachable: every speaker is served in full');
    return null;
  });
}

/** Sends the room's metrics to the worker process every few seconds (nothing without a channel). */
function pushMetricsToWorker({ metrics }: TranslatorJob, channel: LoadChannelClient | null): Periodic {
  const push = () => channel?.sendMetrics(metrics.registry).catch(() => undefined) ?? Promise.resolve();
  const timer = setInterval(() => void push(), METRICS_PUSH_INTERVAL_MS);
  return { stop: () => clearInterval(timer), flush: push };
}

/**
 * The hosted speech-to-speech session every speaker gets instead of the composed stages, when configured;
 * `fallback`: the stages take a speaker over once their session is given up (TRANSLATOR_REALTIME_FALLBACK).
 */
export function realtimeOptions(config: AgentConfig): RoomTranslatorOptions['realtime'] {
  const { realtime, openai } = config.pipeline;
  if (!realtime) return null;
  return {
    baseUrl: realtime.baseUrl,
    apiKey: openai?.apiKey ?? '',
    model: realtime.model,
    inputTranscriptionModel: realtime.transcriptionModel,
    fallback: realtime.fallback,
  };
}

/** The room's translator, listening for the room's tracks before it connects. */
function roomTranslator(
  { ctx, logger, config, job, reporter, metrics, providers, local }: TranslatorJob,
  channel: LoadChannelClient | null,
  latency: LatencyTracker,
  glossaries: RoomGlossaries | undefined,
): RoomTranslator {
  const translator = new RoomTranslator({
    glossaries,
    room: ctx.room,
    mode: job.mode,
    languages: job.languages,
    providers,
    latency,
    onError: (error) => logger.error({ error, roomId: job.roomId }, 'translation pipeline error'),
    admission: channel ?? unlimitedAdmission,
    observer: metrics,
    reporter,
    simultaneous: chunkPolicyFor(config.pipeline.timing),
    realtime: realtimeOptions(config),
    local,
  });
  translator.listen();
  return translator;
}

/** Connects to the room, publishes the translator's tracks and reports the translator joined. */
async function joinRoom({ ctx, logger, job, reporter, providers }: TranslatorJob, translator: RoomTranslator): Promise<void> {
  await ctx.connect(undefined, AutoSubscribe.AUDIO_ONLY);
  await translator.publish();
  await reporter.joined();
  logger.info({ roomId: job.roomId, languages: job.languages, mode: job.mode, pipeline: providers.label }, 'translator joined');
}

/**
 * Finish what was heard, then leave, once: when the worker drains (told over the load channel, see
 * main.ts), on a SIGTERM sent to this job process itself (a signal to the whole process group), or when
 * the room is emptied. Returns what stops watching for them.
 */
function leaveWhenDone({ ctx, config, job }: TranslatorJob, translator: RoomTranslator, channel: LoadChannelClient | null): () => void {
  let leaving = false;
  const leave = (reason: string) => {
    if (leaving) return;
    leaving = true;
    void translator.drain().finally(() => ctx.shutdown(reason));
  };
  const watch = new LanguageWatch(ctx.room, job.languages, config.leaveAfterMs, () => leave('room below two languages'));
  watch.start();
  const onDrain = () => leave('worker draining');
  const stopDrain = channel?.onDrain(onDrain);
  process.once('SIGTERM', onDrain);
  return () => {
    watch.stop();
    stopDrain?.();
    process.off('SIGTERM', onDrain);
  };
}

/** Logs and reports each direction's translation latency every stats interval, and once more at the end. */
function reportLatency({ logger, config, job, reporter }: TranslatorJob, latency: LatencyTracker): Periodic {
  const report = async () => {
    const reports = latency.drain();
    for (const r of reports) logger.info({ roomId: job.roomId, ...r }, 'translation latency');
    await reporter.latency(reports);
  };
  const timer = setInterval(
    () => void report().catch((error: unknown) => logger.warn({ error }, 'latency report failed')),
    config.statsIntervalMs,
  );
  return { stop: () => clearInterval(timer), flush: () => report().catch(() => undefined) };
}
