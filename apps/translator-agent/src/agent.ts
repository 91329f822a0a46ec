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
import { GlossaryFollower } from './glossaries/glossary-follower';
import { LanguageWatch } from './translation/language-watch';
import { LatencyTracker } from './translation/latency-tracker';
import { createSpeechProviders } from './translation/providers';
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
}

/** A report a step sends periodically until the job shuts down. */
interface Periodic {
  /** Stops the timer. */
  stop(): void;
  /** Sends it once more: its last word before the job ends, after the translator closed. */
  flush(): Promise<unknown>;
}

export default defineAgent({
  entry: async (ctx: JobContext) => {
    const job = openJob(ctx);
    if (!(await servesAnyDirection(job))) return leaveUnserved(job);
    const channel = await connectLoadChannel(job.logger);
    const metricsPush = pushMetricsToWorker(job, channel);
    const latency = new LatencyTracker();
    const glossaries = await followGlossaries(job);
    const translator = await joinRoom(job, channel, latency, glossaries.latest());
    glossaries.applyTo(translator);
    const stopWatching = leaveWhenDone(job, translator);
    const latencyReports = reportLatency(job, latency);
    ctx.addShutdownCallback(async () => {
      latencyReports.stop();
      metricsPush.stop();
      stopWatching();
      await glossaries.close();
      await translator.close();
      await job.providers.close?.();
      await latencyReports.flush();
      await job.reporter.left();
      await job.reporter.close();
      await metricsPush.flush();
      await channel?.close();
    });
  },
});

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
  const providers = createSpeechProviders(config.pipeline, OUTPUT_SAMPLE_RATE, (stage, error, recoverable) => {
    metrics.providerError(stage, recoverable ?? false);
    logger.warn({ error, stage, roomId: job.roomId }, 'translation provider error');
  });
  return { ctx, logger, config, job, reporter, metrics, providers };
}

/**
 * Logs and reports the directions the pipeline cannot translate; whether any direction is left to serve.
 * A realtime session with a key serves both directions, whatever its fallback stages could.
 */
async function servesAnyDirection({ logger, config, job, reporter, providers }: TranslatorJob): Promise<boolean> {
  const support = roomSupport(job.languages, providers, Boolean(config.pipeline.realtime && config.pipeline.openai));
  if (support.line) {
    logger.warn({ roomId: job.roomId, refused: support.refused }, support.line);
    await reporter.latency(support.refused.map(refusedReport)).catch((error: unknown) => logger.warn({ error }, 'report failed'));
  }
  return support.served.length > 0;
}

/** Ends a job that has nothing to translate without joining the room. */
async function leaveUnserved({ ctx, reporter, providers }: TranslatorJob): Promise<void> {
  await providers.close?.();
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

/** How long a job waits for Redis to read its room's glossaries before it joins without them (they follow once it answers). */
const GLOSSARIES_WAIT_MS = 3000;

export interface FollowedGlossaries {
  /** The newest glossaries handed on so far (the dispatch's, or a change since); undefined: none. */
  latest(): RoomGlossaries | undefined;
  /** From now on, each newer version goes to the translator. */
  applyTo(translator: Pick<RoomTranslator, 'setGlossaries'>): void;
  close(): Promise<void>;
}

/**
 * The room's glossaries: those its dispatch carried, or newer (the presence consumer keeps them in
 * Redis), then each change while the room lives (extensions.md "Glossaries").
 */
export async function followGlossaries({
  logger,
  config,
  job,
}: {
  logger: Pick<Logger, 'info' | 'warn'>;
  config: Pick<AgentConfig, 'redisUrl' | 'queuePrefix'>;
  job: Pick<TranslatorJobMetadata, 'roomId'>;
}): Promise<FollowedGlossaries> {
  let latest: RoomGlossaries | undefined;
  let translator: Pick<RoomTranslator, 'setGlossaries'> | undefined;
  const follower = new GlossaryFollower({
    redisUrl: config.redisUrl,
    prefix: config.queuePrefix,
    roomId: job.roomId,
    onChange: (glossaries) => {
      latest = glossaries;
      translator?.setGlossaries(glossaries);
      logger.info({ roomId: job.roomId, version: glossaries.version }, 'glossaries applied from the next utterance');
    },
    onError: (error) => logger.warn({ error, roomId: job.roomId }, 'glossaries: Redis'),
  });
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), GLOSSARIES_WAIT_MS)));
  const starting = follower.start().then(
    () => 'started' as const,
    (error: unknown) => (logger.warn({ error, roomId: job.roomId }, 'glossaries: not followed'), 'failed' as const),
  );
  const started = await Promise.race([starting, waited]).finally(() => clearTimeout(timer));
  if (started === 'timeout') logger.warn({ roomId: job.roomId }, 'glossaries not read yet (Redis): joining without them');
  return {
    latest: () => latest,
    applyTo: (room) => {
      translator = room;
      if (latest) room.setGlossaries(latest);
    },
    close: () => follower.close(),
  };
}

/** Builds the room's translator, connects to the room, publishes its tracks and reports the translator joined. */
async function joinRoom(
  { ctx, logger, config, job, reporter, metrics, providers }: TranslatorJob,
  channel: LoadChannelClient | null,
  latency: LatencyTracker,
  glossaries: RoomGlossaries | undefined,
): Promise<RoomTranslator> {
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
  });
  translator.listen();
  await ctx.connect(undefined, AutoSubscribe.AUDIO_ONLY);
  await translator.publish();
  await reporter.joined();
  logger.info({ roomId: job.roomId, languages: job.languages, mode: job.mode, pipeline: providers.label }, 'translator joined');
  return translator;
}

/**
 * Finish what was heard, then leave: on a worker drain (SIGTERM forwarded by main.ts) or an emptied
 * room. Returns what stops watching for either.
 */
function leaveWhenDone({ ctx, config, job }: TranslatorJob, translator: RoomTranslator): () => void {
  const leave = (reason: string) => void translator.drain().finally(() => ctx.shutdown(reason));
  const watch = new LanguageWatch(ctx.room, job.languages, config.leaveAfterMs, () => leave('room below two languages'));
  watch.start();
  const onTerm = () => leave('worker draining');
  process.once('SIGTERM', onTerm);
  return () => {
    watch.stop();
    process.off('SIGTERM', onTerm);
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
