/**
 * The LiveKit agent (`translator`): what runs in a job process once LiveKit assigns this worker a
 * dispatch. Default export for agents-js, which imports this file by path (WorkerOptions.agent).
 */
import { AutoSubscribe, defineAgent, log, type JobContext } from '@livekit/agents';
import { LOAD_SOCKET_ENV, LoadChannelClient } from './capacity/load-channel';
import { unlimitedAdmission } from './capacity/stream-budget';
import { loadAgentConfig } from './config';
import { AgentMetrics } from './metrics/agent-metrics';
import { TranslatorEventsReporter } from './events/translator-events';
import { LanguageWatch } from './translation/language-watch';
import { LatencyTracker } from './translation/latency-tracker';
import { createSpeechProviders } from './translation/providers';
import { refusedReport, roomSupport } from './translation/room-support';
import { OUTPUT_SAMPLE_RATE, RoomTranslator } from './translation/room-translator';
import { chunkPolicyFor } from './translation/stable-chunks';

export interface TranslatorJobMetadata {
  roomId: string;
  languages: [string, string];
  mode: 'mono' | 'dual';
}

/** How often a room sends its metrics to the worker process, which serves them on AGENT_METRICS_PORT. */
const METRICS_PUSH_INTERVAL_MS = 5000;

export function parseJobMetadata(metadata: string): TranslatorJobMetadata {
  const parsed = JSON.parse(metadata) as Partial<TranslatorJobMetadata>;
  const { roomId, languages, mode } = parsed;
  if (typeof roomId !== 'string' || !Array.isArray(languages) || languages.length !== 2 || (mode !== 'mono' && mode !== 'dual')) {
    throw new Error(`translator job metadata is not {roomId, languages[2], mode}: ${metadata}`);
  }
  return { roomId, languages: [String(languages[0]), String(languages[1])], mode };
}

export default defineAgent({
  entry: async (ctx: JobContext) => {
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
    const support = roomSupport(job.languages, providers);
    if (support.line) {
      logger.warn({ roomId: job.roomId, refused: support.refused }, support.line);
      await reporter.latency(support.refused.map(refusedReport)).catch((error: unknown) => logger.warn({ error }, 'report failed'));
    }
    if (support.served.length === 0) {
      await providers.close?.();
      await reporter.close();
      ctx.shutdown('language pair not supported by the pipeline');
      return;
    }

    // The worker's stream budget, shared by every room it runs (absent when the job runs without that worker).
    const socket = process.env[LOAD_SOCKET_ENV];
    const channel = socket
      ? await LoadChannelClient.connect(socket).catch((error: unknown) => {
          logger.warn({ error }, 'worker load channel unreachable: every speaker is served in full');
          return null;
        })
      : null;
    const pushMetrics = () => channel?.sendMetrics(metrics.registry).catch(() => undefined);
    const metricsTimer = setInterval(() => void pushMetrics(), METRICS_PUSH_INTERVAL_MS);

    const latency = new LatencyTracker();
    const translator = new RoomTranslator({
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
      realtime: config.pipeline.realtime && {
        baseUrl: config.pipeline.realtime.baseUrl,
        apiKey: config.pipeline.openai?.apiKey ?? '',
        model: config.pipeline.realtime.model,
        inputTranscriptionModel: config.pipeline.realtime.transcriptionModel,
      },
    });
    translator.listen();
    await ctx.connect(undefined, AutoSubscribe.AUDIO_ONLY);
    await translator.publish();
    await reporter.joined();
    logger.info({ roomId: job.roomId, languages: job.languages, mode: job.mode, pipeline: providers.label }, 'translator joined');

    // Finish what was heard, then leave: on a worker drain (SIGTERM forwarded by main.ts) or an emptied room.
    const leave = (reason: string) => void translator.drain().finally(() => ctx.shutdown(reason));
    const watch = new LanguageWatch(ctx.room, job.languages, config.leaveAfterMs, () => leave('room below two languages'));
    watch.start();
    const onTerm = () => leave('worker draining');
    process.once('SIGTERM', onTerm);

    const report = async () => {
      const reports = latency.drain();
      for (const r of reports) logger.info({ roomId: job.roomId, ...r }, 'translation latency');
      await reporter.latency(reports);
    };
    const timer = setInterval(
      () => void report().catch((error: unknown) => logger.warn({ error }, 'latency report failed')),
      config.statsIntervalMs,
    );
    ctx.addShutdownCallback(async () => {
      clearInterval(timer);
      clearInterval(metricsTimer);
      watch.stop();
      process.off('SIGTERM', onTerm);
      await translator.close();
      await providers.close?.();
      await report().catch(() => undefined);
      await reporter.left();
      await reporter.close();
      await pushMetrics();
      await channel?.close();
    });
  },
});
