// `npm run dev`: everything a newcomer needs, in one command.
// Installs dependencies when missing, reads .env, makes sure Postgres, Redis and LiveKit answer, builds
// (when a source changed), migrates, runs the API, the queue workers and the translator agent, creates a
// development organization with an API key and credit, and ends with a banner holding a request that works.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVER_NODE_FLAGS } from './server-node-flags.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DATA = path.join(ROOT, '.data');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const say = (line) => process.stdout.write(`[dev] ${line}\n`);

if (!existsSync(path.join(ROOT, 'node_modules', '.package-lock.json'))) {
  say('Installing dependencies (npm ci)…');
  if (spawnSync(npm, ['ci'], { cwd: ROOT, stdio: 'inherit' }).status !== 0) process.exit(1);
}
// The environment wins over .env; every process started below inherits both.
if (existsSync(path.join(ROOT, '.env'))) process.loadEnvFile(path.join(ROOT, '.env'));
process.env.NODE_ENV ??= 'development';

const { postgresAnswers, tcpAnswers, LOOPBACK, redisServerOrError, redisServerArgs, serviceUrls } = await import('./services.mjs');
const { createSupervisor } = await import('./dev/supervisor.mjs');
const { ensureLivekit } = await import('./dev/livekit.mjs');
const { bannerLines } = await import('./dev/banner.mjs');
const { buildIsCurrent, markBuilt, sourcesMtime } = await import('./dev/build-stamp.mjs');

const supervisor = createSupervisor({ say });
supervisor.stopOnSignals();
const fail = async (message) => {
  say(message);
  await supervisor.stopAll(1);
};
const node = (script, args = []) => [process.execPath, [path.join(ROOT, script), ...args]];
/** The API and the queue workers, with the flags they are deployed with. */
const server = (script) => [process.execPath, [...SERVER_NODE_FLAGS, path.join(ROOT, script)]];

async function ensurePostgres(databaseUrl) {
  if (await postgresAnswers(databaseUrl)) return;
  const url = new URL(databaseUrl);
  if (!LOOPBACK.has(url.hostname)) throw new Error(`PostgreSQL at ${url.host} does not answer; start it or set DATABASE_URL.`);
  say(`PostgreSQL does not answer at ${url.host}: starting an embedded PostgreSQL (data in .data/postgres).`);
  const entry = supervisor.start('PostgreSQL', ...node('scripts/dev/embedded-postgres.mjs', [databaseUrl]), { cwd: ROOT });
  await supervisor.waitUntil(entry, () => postgresAnswers(databaseUrl), 120_000);
}

async function ensureRedis(redisUrl) {
  const url = new URL(redisUrl);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(url.port || 6379);
  if (await tcpAnswers(host, port)) return;
  if (!LOOPBACK.has(url.hostname)) throw new Error(`Redis at ${url.host} does not answer; start it or set REDIS_URL.`);
  const missing = redisServerOrError();
  if (missing) throw missing;
  say(`Redis does not answer at ${url.host}: starting redis-server on port ${port}.`);
  const entry = supervisor.start('Redis', 'redis-server', redisServerArgs(port), { cwd: ROOT });
  await supervisor.waitUntil(entry, () => tcpAnswers(host, port), 20_000);
}

async function httpAnswers(url) {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(1000) })).ok;
  } catch {
    return false;
  }
}

/** Runs a built script to its end and returns its stdout (one JSON object for the CLI). */
function capture(script, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(...node(script, args), { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${script} ${args[0]} exited with code ${code}`))));
  });
}

/**
 * Session sign-in without an identity provider: outside production, and unless AUTH_JWKS_URL names one,
 * a development identity provider's JWKS served from this process (apps/api/src/cli/dev-identity.ts);
 * the API and the workers started below inherit AUTH_JWKS_URL, AUTH_ISSUER and AUTH_AUDIENCE.
 */
async function startDevIdentity(config) {
  if (config.env === 'production') return null;
  if (process.env.AUTH_JWKS_URL) return { external: process.env.AUTH_JWKS_URL };
  const identity = createRequire(import.meta.url)(path.join(ROOT, 'dist/apps/api/apps/api/src/cli/dev-identity.js'));
  const { server, url } = await identity.serveDevJwks(await identity.devIdentity(identity.devIdentityFile(ROOT)));
  server.unref();
  Object.assign(process.env, { AUTH_JWKS_URL: url, AUTH_ISSUER: identity.DEV_ISSUER, AUTH_AUDIENCE: identity.DEV_AUDIENCE });
  return { url };
}

try {
  const { databaseUrl, redisUrl } = serviceUrls();
  await ensurePostgres(databaseUrl);
  await ensureRedis(redisUrl);

  if (buildIsCurrent(ROOT)) say('Build is up to date.');
  else {
    say('Building…');
    const mtime = sourcesMtime(ROOT);
    if ((await supervisor.run('Build', npm, ['run', '--silent', 'build'], { cwd: ROOT })) !== 0)
      throw new Error('The build failed; see above.');
    markBuilt(ROOT, mtime);
  }
  const { loadConfig } = createRequire(import.meta.url)(path.join(ROOT, 'dist/apps/api/apps/api/src/config/app-config.js'));
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    throw new Error(`Invalid configuration: ${error.message}`);
  }
  say('Migrating the database…');
  if ((await supervisor.run('Migration', ...node('dist/apps/api/apps/api/src/database/migrate.js'), { cwd: ROOT })) !== 0) {
    throw new Error('Migrating failed; see above.');
  }

  const rooms = await ensureLivekit({ config, apiPort: config.port, supervisor, say, dataDir: DATA, root: ROOT });
  const sessions = await startDevIdentity(config);

  // The API answers requests; the worker process applies queued webhook and translator events.
  const api = supervisor.start('API', ...server('dist/apps/api/apps/api/src/main.js'), {
    cwd: ROOT,
    env: { ...process.env, RUN_QUEUE_WORKERS: 'false' },
  });
  const worker = supervisor.start('Queue workers', ...server('dist/apps/api/apps/api/src/worker.js'), {
    cwd: ROOT,
    readyLine: /^Queue workers running$/,
  });
  // The translator agent registers with LiveKit: without one it could only retry and give up.
  let agent = 'not started: it works through LiveKit, which is not available (see Rooms).';
  let agentEntry = null;
  const agentProbe = spawnSync(...node('dist/apps/translator-agent/apps/translator-agent/src/main.js', ['--check']), {
    cwd: ROOT,
    encoding: 'utf8',
  });
  // Without a hosted provider's key, the agent runs the local pipeline (Debian packages); --check names it.
  const pipeline = agentProbe.stdout.trim().replace(/^translator agent configured \((.*)\)$/, '$1');
  if (agentProbe.status !== 0) agent = `skipped: ${(agentProbe.stderr || agentProbe.stdout).trim()}`;
  else if (rooms.standIn) {
    agent =
      'not started: the LiveKit stand-in carries no media to translate. ' +
      '`npm run -s translate:file -- --room <room_id> …` puts a recording into a room transcript without it (README, Transcripts).';
  } else if (rooms.available) {
    agentEntry = supervisor.start('Translator agent', ...node('dist/apps/translator-agent/apps/translator-agent/src/main.js'), {
      cwd: ROOT,
      optional: true,
      readyLine: /registered worker/,
    });
  }

  await supervisor.waitUntil(api, () => httpAnswers(`http://127.0.0.1:${config.port}/health/live`));
  await supervisor.waitUntil(worker, () => worker.ready, 60_000);
  if (agentEntry) {
    agent = await supervisor
      .waitUntil(agentEntry, () => agentEntry.ready, 30_000)
      .then(
        () => `running, registered with LiveKit (${pipeline}; joins rooms that hold two languages)`,
        (error) => `started, but not registered with LiveKit: ${error.message} (see its log above)`,
      );
  }

  let account = null;
  if (config.env === 'production') say('NODE_ENV=production: no development organization is created.');
  else {
    // The CLI names the file (one per database) and prints it, so that `npm run -s cli -- dev:account` finds the same.
    account = JSON.parse(await capture('dist/apps/api/apps/api/src/cli/main.js', ['dev:account']));
    account.file = path.relative(ROOT, account.file);
  }
  for (const line of bannerLines({ port: config.port, rooms, agent, account, sessions, consoleEnabled: config.http.consoleEnabled })) {
    say(line);
  }
} catch (error) {
  if (!supervisor.stopping) await fail(error.message);
}
