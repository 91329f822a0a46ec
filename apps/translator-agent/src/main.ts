/**
 * The translator agent app: a BullMQ consumer that places or removes the `translator` agent in
 * LiveKit rooms (translator-presence jobs), and the agents-js worker LiveKit assigns those rooms to.
 * `--check` only validates the configuration: exit 0 when the agent can start, else one line and 1.
 */
import { TRANSLATOR_AGENT_NAME } from '@app/contracts';
import { cli, WorkerOptions } from '@livekit/agents';
import { existsSync } from 'node:fs';
import IORedis from 'ioredis';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { describePipeline, loadAgentConfig } from './config';
import { LiveKitPresenceGateway } from './dispatch/livekit-presence';
import { PresenceConsumer } from './dispatch/presence-consumer';
import { jobCapacity } from './worker-capacity';

/**
 * The job processes agents-js forked. A signal to the worker reaches only the worker; its jobs are
 * told too, so each finishes the utterance in progress and leaves (see agent.ts) while the worker drains.
 */
function childPids(): number[] {
  try {
    return readdirSync('/proc/self/task').flatMap((task) =>
      readFileSync(`/proc/self/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number),
    );
  } catch {
    return []; // not Linux: jobs run until their rooms end or the drain timeout
  }
}

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
    process.once(signal, () => {
      for (const pid of childPids()) {
        try {
          process.kill(pid, 'SIGTERM');
        } catch {
          // already gone
        }
      }
      void consumer.close().then(() => redis.quit().catch(() => undefined));
    });
  }
  logger.info(`translator pipeline: ${describePipeline(config.pipeline)}`);

  // `npm run start:agent` passes no sub-command: run the worker in production mode.
  if (process.argv.length < 3 || process.argv[2]?.startsWith('-')) process.argv.splice(2, 0, 'start');
  cli.runApp(
    new WorkerOptions({
      agent: path.join(__dirname, 'agent.js'),
      agentName: TRANSLATOR_AGENT_NAME,
      wsURL: config.livekit.wsUrl,
      apiKey: config.livekit.apiKey,
      apiSecret: config.livekit.apiSecret,
      ...jobCapacity(config.maxJobs),
      loadThreshold: 1,
      drainTimeout: config.drainTimeoutMs,
    }),
  );
}

main();
