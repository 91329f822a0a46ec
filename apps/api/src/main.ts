import 'reflect-metadata';
import { createApp } from './app.factory';
import { exitAfterDrainTime } from './common/shutdown/drain-deadline';
import { loadConfigOrExit } from './config/app-config';
import { loadDotEnv } from './config/dot-env';
import { hasPendingMigrations } from './database/pending-migrations';

async function main(): Promise<void> {
  loadDotEnv();
  const config = loadConfigOrExit();
  if (await hasPendingMigrations(config.databaseUrl)) {
    process.stderr.write('The database has pending migrations: run `npm run migrate` first.\n');
    process.exit(1);
  }
  const app = await createApp(config);
  exitAfterDrainTime(config.shutdownTimeoutMs, 'The API');
  await app.listen(config.port, '0.0.0.0');
  process.stdout.write(`API listening on http://127.0.0.1:${config.port} (docs: http://127.0.0.1:${config.port}/docs)\n`);
}

main().catch((error: Error) => {
  process.stderr.write(`API failed to start: ${error.message}\n`);
  process.exit(1);
});
