import 'reflect-metadata';
import { createApp } from './app.factory';
import { exitAfterDrainTime } from './common/shutdown/drain-deadline';
import { loadConfigOrExit } from './config/app-config';
import { loadDotEnv } from './config/dot-env';
import { hasPendingMigrations } from './database/pending-migrations';

/**
 * The queue workers on their own (webhook events, translator events), without the HTTP server:
 * run it next to API processes started with RUN_QUEUE_WORKERS=false, so applying events never
 * competes with answering requests for one process's CPU.
 */
async function main(): Promise<void> {
  loadDotEnv();
  const loaded = loadConfigOrExit({ ...process.env, RUN_QUEUE_WORKERS: 'true' });
  // Its own metrics listener: next to an API process on the same host, METRICS_PORT is the API's. Its
  // only endpoint, so it listens on HOST and asks for METRICS_TOKEN as the API port does.
  const config = { ...loaded, metrics: { ...loaded.metrics, port: loaded.metrics.workerPort, portLikeApi: true } };
  if (await hasPendingMigrations(config.databaseUrl)) {
    process.stderr.write('The database has pending migrations: run `npm run migrate` first.\n');
    process.exit(1);
  }
  const app = await createApp(config);
  exitAfterDrainTime(config.shutdownTimeoutMs, 'The queue workers');
  await app.init();
  process.stdout.write('Queue workers running\n');
}

main().catch((error: Error) => {
  process.stderr.write(`Queue workers failed to start: ${error.message}\n`);
  process.exit(1);
});
