import type { QueueName } from '@app/contracts';
import { loadConfig } from '../../src/config/app-config';
import { QueueRegistry } from '../../src/queue/queue.registry';
import { deleteKeysOf, testQueuePrefix } from '../support/redis-keys';

describe('queue registry shutdown', () => {
  it('lets a running job finish before it closes, and refuses a second handler for one queue', async () => {
    const config = loadConfig({ ...process.env, NODE_ENV: 'test', QUEUE_PREFIX: testQueuePrefix() });
    const registry = new QueueRegistry(config);
    const queue = 'shutdown-test' as QueueName;
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    let finished = false;
    registry.process(queue, async () => {
      started();
      await new Promise((resolve) => setTimeout(resolve, 400));
      finished = true;
    });
    expect(() => registry.process(queue, async () => undefined)).toThrow('has two handlers');
    await registry.add(queue, 'slow', {});
    await running;
    await registry.onApplicationShutdown();
    expect(finished).toBe(true);
    await deleteKeysOf(config.redisUrl, config.queuePrefix);
  });
});
