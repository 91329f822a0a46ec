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
  await app.listen(config.port, config.host);
  const bound = config.host.includes(':') ? `[${config.host}]:${config.port}` : `${config.host}:${config.port}`;
  const local = localUrl(config.host, config.port);
  process.stdout.write(`API listening on ${bound} (${local}, docs: ${local}/docs)\n`);
}

/** Where this machine reaches the API: the bound address, or loopback when it listens on every interface. */
function localUrl(host: string, port: number): string {
  const reach = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return `http://${reach.includes(':') ? `[${reach}]` : reach}:${port}`;
}

main().catch((error: Error) => {
  process.stderr.write(`API failed to start: ${error.message}\n`);
  process.exit(1);
});
