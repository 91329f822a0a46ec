import { spawn, type ChildProcess } from 'node:child_process';
import IORedis from 'ioredis';
import { RateLimitsService } from '../../src/common/rate-limiting/rate-limits.service';
import { loadConfig } from '../../src/config/app-config';
import { freePort } from '../support/free-port';

async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  const probe = new IORedis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  for (let i = 0; i < 100; i++) {
    try {
      await probe.connect();
      await probe.ping();
      probe.disconnect();
      return child;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  throw new Error('redis-server did not start');
}

const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });

describe('rate limits when Redis fails', () => {
  it('fail open while Redis is gone, and hold again once it is back, without a restart', async () => {
    const port = await freePort();
    let redis = await startRedis(port);
    const limits = new RateLimitsService(
      loadConfig({
        NODE_ENV: 'test',
        REDIS_URL: `redis://127.0.0.1:${port}`,
        RATE_LIMIT_PER_CREDENTIAL: '2',
        QUEUE_PREFIX: 'rl_fail_open',
      }),
    );
    try {
      await new Promise((resolve) => setTimeout(resolve, 200)); // connected
      await limits.spend('credential', 'k1');
      await limits.spend('credential', 'k1');
      await expect(limits.spend('credential', 'k1')).rejects.toMatchObject({ status: 429 });

      await stop(redis);
      // Every request goes through while the limits cannot be read: none is refused, none waits.
      for (let i = 0; i < 5; i++) await expect(limits.spend('credential', 'k2')).resolves.toEqual({});

      redis = await startRedis(port);
      let enforced = false;
      for (let i = 0; i < 100 && !enforced; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        enforced = Object.keys(await limits.spend('credential', `after-${i}`)).length > 0;
      }
      expect(enforced).toBe(true);
      await limits.spend('credential', 'k3');
      await limits.spend('credential', 'k3');
      await expect(limits.spend('credential', 'k3')).rejects.toMatchObject({ status: 429 });
    } finally {
      await limits.onModuleDestroy();
      await stop(redis);
    }
  }, 30_000);
});
