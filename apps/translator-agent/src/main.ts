/**
 * The translator agent app: a BullMQ consumer that places or removes the `translator` agent in
 * LiveKit rooms (translator-presence jobs), and the agents-js worker LiveKit assigns those rooms to.
 * `--check` only validates the configuration: exit 0 when the agent can start, else one line and 1.
 */
import { TRANSLATOR_AGENT_NAME } from '@app/contracts';
import { cli, initializeLogger, WorkerOptions } from '@livekit/agents';
import IORedis from 'ioredis';
import { existsSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { workerStreamCapacity } from './capacity/worker-streams';
import { LOAD_SOCKET_ENV, LoadChannelServer } from './capacity/load-channel';
import { StreamBudget } from './capacity/stream-budget';
import { describePipeline, loadAgentConfig, type AgentConfig } from './config';
import { LiveKitPresenceGateway } from './dispatch/livekit-presence';
import { PresenceConsumer } from './dispatch/presence-consumer';
import { WorkerMetrics } from './metrics/agent-metrics';
import { serveMetrics, workerExposition } from './metrics/metrics-server';
import { jobCapacity, LOAD_THRESHOLD } from './worker-capacity';

/**
 * The worker's options for agents-js: its load (jobs, speaker streams against `budget`, CPU) reported
 * with the threshold at which LiveKit stops assigning it rooms.
 */
export function workerOptions(
  config: AgentConfig,
  budget: StreamBudget,
  metrics?: WorkerMetrics,
  cpuLoad?: () => number,
): InstanceType<typeof WorkerOptions> {
  return new WorkerOptions({
    agent: path.join(__dirname, 'agent.js'),
    agentName: TRANSLATOR_AGENT_NAME,
    wsURL: config.livekit.wsUrl,
    apiKey: config.livekit.apiKey,
    apiSecret: config.livekit.apiSecret,
    ...jobCapacity(
      config.maxJobs,
      Date.now,
      () => budget.load,
      (load, rooms) => {
        metrics?.load.set(load);
        metrics?.activeRooms.set(rooms);
      },
      cpuLoad,
    ),
    loadThreshold: LOAD_THRESHOLD,
    drainTimeout: config.drainTimeoutMs,
    ...(config.healthPort !== null ? { port: config.healthPort } : {}),
  });
}

async function main(): Promise<void> {
  // `.env` under the environment, as the API reads it
  if (existsSync('.env')) process.loadEnvFile('.env');
  const loaded = loadAgentConfig(process.env);
  if (!loaded.ok) {
    process.stderr.write(`${loaded.problem}\n`);
    process.exit(1);
  }
  const { config } = loaded;
  if (process.argv.includes('--check')) {
    process.stdout.write(`translator agent configured (${describePipeline(config.pipeline)})\n`);
    process.exit(0);
  }

  const logger = pino({ name: 'translator-presence', level: config.logLevel });
  const redis = new IORedis(config.redisUrl, { maxRetriesPerRequest: null, connectionName: 'translator-agent' });
  const consumer = new PresenceConsumer({
    connection: redis,
    prefix: config.queuePrefix,
    gateway: new LiveKitPresenceGateway(config.livekit.apiUrl, config.livekit.apiKey, config.livekit.apiSecret),
    logger: { info: (m) => logger.info(m), warn: (m) => logger.warn(m), error: (m) => logger.error(m) },
  });
  consumer.start();
  // agents-js exits the process on SIGINT/SIGTERM once its worker drained; stop taking jobs first.
  // A job cut off mid-way is picked up again as stalled, and every job is idempotent.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void consumer.close().then(() => redis.quit().catch(() => undefined)));
  }
  logger.info(`translator pipeline: ${describePipeline(config.pipeline)}`);

  // The calibration runs agents-js's STT and TTS, which log; cli.runApp sets the logger up again later.
  initializeLogger({ pretty: false, level: config.logLevel });
  const capacity = await workerStreamCapacity(config);
  logger.info(capacity, `translator stream capacity: ${capacity.capacity} speaker streams (${capacity.source})`);
  const budget = new StreamBudget(capacity.capacity);
  // The job processes agents-js forks inherit the environment: they find the worker's budget here.
  const socketPath = path.join(os.tmpdir(), `translator-load-${process.pid}.sock`);
  rmSync(socketPath, { force: true });
  const channel = new LoadChannelServer(budget, socketPath);
  await channel.listen();
  process.env[LOAD_SOCKET_ENV] = socketPath;
  process.once('exit', () => rmSync(socketPath, { force: true }));
  // agents-js's drain (on these signals) waits for the rooms and never tells them: the channel does, so
  // each room finishes the utterance in progress and leaves (agent.ts) instead of running to the drain timeout.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => channel.drain());

  const metrics = new WorkerMetrics(() => budget.streams, capacity.capacity);
  if (config.metricsPort !== null) {
    await serveMetrics(config.metricsPort, () => workerExposition(metrics.registry, channel.jobMetrics()));
    logger.info(`translator metrics on :${config.metricsPort}/metrics`);
  }

  // `npm run start:agent` passes no sub-command: run the worker in production mode.
  if (process.argv.length < 3 || process.argv[2]?.startsWith('-')) process.argv.splice(2, 0, 'start');
  cli.runApp(workerOptions(config, budget, metrics));
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`translator agent: ${String((error as Error)?.message ?? error)}\n`);
    process.exit(1);
  });
}
