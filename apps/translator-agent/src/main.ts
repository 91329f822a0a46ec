/**
 * The translator agent app: a BullMQ consumer that places or removes the `translator` agent in
 * LiveKit rooms (translator-presence jobs), and the agents-js worker LiveKit assigns those rooms to.
 * `--check` only validates the configuration: exit 0 when the agent can start, else one line and 1.
 */
import { TRANSLATOR_AGENT_NAME } from '@app/contracts';
import { cli, WorkerOptions } from '@livekit/agents';
import { existsSync } from 'node:fs';
import IORedis from 'ioredis';
import path from 'node:path';
import pino from 'pino';
import { loadAgentConfig } from './config';
import { LiveKitPresenceGateway } from './dispatch/livekit-presence';
import { PresenceConsumer } from './dispatch/presence-consumer';

function main(): void {
  // `.env` under the environment, as the API reads it
  if (existsSync('.env')) process.loadEnvFile('.env');
  const loaded = loadAgentConfig(process.env);
  if (!loaded.ok) {
    process.stderr.write(`${loaded.problem}\n`);
    process.exit(1);
  }
  const { config } = loaded;
  if (process.argv.includes('--check')) {
    process.stdout.write(`translator agent configured (pipeline: ${config.pipeline.provider})\n`);
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

  // `npm run start:agent` passes no sub-command: run the worker in production mode.
  if (process.argv.length < 3 || process.argv[2]?.startsWith('-')) process.argv.splice(2, 0, 'start');
  cli.runApp(
    new WorkerOptions({
      agent: path.join(__dirname, 'agent.js'),
      agentName: TRANSLATOR_AGENT_NAME,
      wsURL: config.livekit.wsUrl,
      apiKey: config.livekit.apiKey,
      apiSecret: config.livekit.apiSecret,
    }),
  );
}

main();
