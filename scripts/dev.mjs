// `npm run dev`: everything a newcomer needs, in one command.
// Installs dependencies when missing, makes sure Postgres and Redis answer, builds, migrates,
// then runs the API (with its queue workers) and the translator agent until Ctrl-C.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const say = (line) => process.stdout.write(`[dev] ${line}\n`);

function run(args, label) {
  say(label);
  const result = spawnSync(npm, args, { cwd: ROOT, stdio: 'inherit', env: process.env });
  if (result.status !== 0) {
    say(`"npm ${args.join(' ')}" failed; see above.`);
    process.exit(result.status ?? 1);
  }
}

if (!existsSync(path.join(ROOT, 'node_modules', '.package-lock.json'))) run(['ci'], 'Installing dependencies (npm ci)…');

const { ensurePostgres, ensureRedis, DEFAULT_DATABASE_URL, DEFAULT_REDIS_URL } = await import('./services.mjs');
const databaseUrl = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
const redisUrl = process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
let services;
try {
  services = [await ensurePostgres(databaseUrl, say), await ensureRedis(redisUrl, say)];
} catch (error) {
  say(error.message);
  process.exit(1);
}

run(['run', 'build'], 'Building…');
run(['run', 'migrate'], 'Migrating the database…');

const port = process.env.PORT ?? '3000';
const children = [];
function start(script, name, env = {}) {
  const child = spawn(npm, ['run', '--silent', script], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, NODE_ENV: process.env.NODE_ENV ?? 'development', ...env },
  });
  child.on('exit', (code) => say(`${name} exited with code ${code}`));
  children.push(child);
  return child;
}

// The API answers requests; the worker process applies queued webhook and translator events.
start('start:api', 'API', { RUN_QUEUE_WORKERS: 'false' });
start('start:worker', 'Queue workers');
const agentProbe = spawnSync(process.execPath, ['dist/apps/translator-agent/apps/translator-agent/src/main.js', '--check'], {
  cwd: ROOT,
  encoding: 'utf8',
  env: process.env,
});
if (agentProbe.status === 0) start('start:agent', 'Translator agent');
else say(`Translator agent skipped: ${(agentProbe.stderr || agentProbe.stdout).trim()}`);

say(`API:  http://127.0.0.1:${port}   docs: http://127.0.0.1:${port}/docs   OpenAPI: http://127.0.0.1:${port}/openapi.json`);
say('Get an API key (in another terminal):');
say('  npm run cli -- org:create --name "My Org" --email me@example.com');
say(`  curl -H "Authorization: Bearer <api_key>" http://127.0.0.1:${port}/v1/users/me`);

async function shutdown() {
  for (const child of children) child.kill('SIGTERM');
  await Promise.all(children.map((child) => new Promise((resolve) => (child.exitCode !== null ? resolve() : child.on('exit', resolve)))));
  for (const service of services) await service.stop();
  process.exit(0);
}
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
