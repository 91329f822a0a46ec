// A separate API process with queue workers, for tests that kill a worker mid-job.
import 'reflect-metadata';
import { createApp } from '../../src/app.factory';
import { loadConfig } from '../../src/config/app-config';

async function main(): Promise<void> {
  const app = await createApp(loadConfig(process.env));
  await app.init();
  process.stdout.write('ready\n');
}

main().catch((error: Error) => {
  process.stderr.write(`${error.stack ?? error.message}\n`);
  process.exit(1);
});
