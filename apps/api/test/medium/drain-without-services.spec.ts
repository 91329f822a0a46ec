import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { freePort, leftAfter, ROOT, sleep } from '../support/dev-run';
import { migrate, startOwnPostgres, startOwnRedis, type OwnPostgres } from '../support/own-services';
import { createTestDatabase, dropTestDatabase } from '../support/test-database';

const PROCESSES = [
  ['the queue workers', 'apps/api/src/worker.ts', /^Queue workers running/m],
  ['the API', 'apps/api/src/main.ts', /^API listening/m],
] as const;

/** The API or the queue workers, from source, on the given Postgres and Redis; resolves once ready. */
async function startProcess(script: string, ready: RegExp, databaseUrl: string, redisUrl: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['-r', '@swc-node/register', script], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: 'development',
      LOG_LEVEL: 'error',
      PORT: String(await freePort()),
      DATABASE_URL: databaseUrl,
      REDIS_URL: redisUrl,
      QUEUE_PREFIX: `trk_test_${randomBytes(4).toString('hex')}`,
      SHUTDOWN_TIMEOUT_MS: '3000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  while (!ready.test(out) && child.exitCode === null) await sleep(100);
  if (child.exitCode !== null) throw new Error(`${script} exited while starting:\n${out}`);
  return child;
}

/** The API and the queue workers, their Redis or their Postgres gone, still stop on SIGTERM within their drain time. */
describe('stopping without Redis', () => {
  let databaseUrl: string;
  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
  });
  afterAll(async () => dropTestDatabase(databaseUrl));

  it.each(PROCESSES)(
    '%s exit on SIGTERM after Redis went away',
    async (_name, script, ready) => {
      const redis = await startOwnRedis();
      const child = await startProcess(script, ready, databaseUrl, redis.url);
      await redis.kill();
      await sleep(500); // the process notices: its connections fail and it starts reconnecting
      child.kill('SIGTERM');
      expect(await leftAfter([child.pid!], 8_000)).toEqual([]);
    },
    90_000,
  );
});

describe('stopping without Postgres', () => {
  let postgres: OwnPostgres;
  let databaseUrl: string;
  let stopped = false;
  beforeAll(async () => {
    postgres = await startOwnPostgres();
    databaseUrl = postgres.url('trk_drain_test');
    migrate(databaseUrl);
  }, 120_000);
  afterAll(async () => postgres.destroy());

  it.each(PROCESSES)(
    '%s exit on SIGTERM after Postgres went away',
    async (_name, script, ready) => {
      if (stopped) await postgres.start();
      const child = await startProcess(script, ready, databaseUrl, process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
      await postgres.stop();
      stopped = true;
      child.kill('SIGTERM');
      expect(await leftAfter([child.pid!], 8_000)).toEqual([]);
    },
    90_000,
  );
});
