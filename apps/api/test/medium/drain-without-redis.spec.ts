import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { freePort, leftAfter, ROOT, sleep } from '../support/dev-run';
import { createTestDatabase, dropTestDatabase } from '../support/test-database';

/** The API and the queue workers, their Redis gone, still stop on SIGTERM within their drain time. */
describe('stopping without Redis', () => {
  let databaseUrl: string;
  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
  });
  afterAll(async () => dropTestDatabase(databaseUrl));

  async function startRedis(port: number): Promise<ChildProcess> {
    const redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    for (
      let i = 0;
      i < 100 &&
      spawnSync('redis-cli', ['-p', String(port), 'ping'])
        .stdout?.toString()
        .trim() !== 'PONG';
      i++
    )
      await sleep(50);
    return redis;
  }

  it.each([
    ['the queue workers', 'apps/api/src/worker.ts', /^Queue workers running/m],
    ['the API', 'apps/api/src/main.ts', /^API listening/m],
  ])(
    '%s exit on SIGTERM after Redis went away',
    async (_name, script, ready) => {
      const redisPort = await freePort();
      const redis = await startRedis(redisPort);
      const child = spawn(process.execPath, ['-r', '@swc-node/register', script], {
        cwd: ROOT,
        env: {
          ...process.env,
          NODE_ENV: 'development',
          LOG_LEVEL: 'error',
          PORT: String(await freePort()),
          DATABASE_URL: databaseUrl,
          REDIS_URL: `redis://127.0.0.1:${redisPort}`,
          QUEUE_PREFIX: `trk_test_${randomBytes(4).toString('hex')}`,
          SHUTDOWN_TIMEOUT_MS: '3000',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
      while (!ready.test(out) && child.exitCode === null) await sleep(100);
      expect(child.exitCode).toBeNull();

      redis.kill('SIGKILL');
      await sleep(500); // the process notices: its connections fail and it starts reconnecting
      child.kill('SIGTERM');
      expect(await leftAfter([child.pid!], 8_000)).toEqual([]);
    },
    90_000,
  );
});
