import { QUEUES, type TranslatorEventJob } from '@app/contracts';
import { initializeLogger, type JobContext } from '@livekit/agents';
import { dispose } from '@livekit/rtc-node';
import { Queue } from 'bullmq';
import IORedis from 'ioredis';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FakeRoom } from '../test/support/fake-room';
import agent from './agent';
import { LOAD_SOCKET_ENV, LoadChannelServer } from './capacity/load-channel';
import { StreamBudget } from './capacity/stream-budget';
import { dispatchMetadata } from './dispatch/presence-plan';

const until = async (condition: () => boolean) => {
  const deadline = Date.now() + 5000;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
};

/** What a job holds open (Redis connections, the worker channel's socket, timers) by kind, as Node counts them. */
function openHandles(): Record<string, number> {
  const counts: Record<string, number> = { TCPSocketWrap: 0, PipeWrap: 0, Timeout: 0 };
  for (const kind of process.getActiveResourcesInfo()) if (kind in counts) counts[kind]! += 1;
  return counts;
}

/** The job as agents-js hands it to the entry: it records how the job ends, and keeps the shutdown callbacks to run them as agents-js does. */
function jobContext(connect: () => Promise<void>) {
  const shutdowns: string[] = [];
  const callbacks: ((reason: string) => Promise<void>)[] = [];
  const ctx = {
    job: {
      id: `AJ_${randomBytes(4).toString('hex')}`,
      metadata: dispatchMetadata({ roomId: 'room-en-es', languages: ['en', 'es'], mode: 'dual' }),
      room: { name: 'lk-room-1' },
    },
    room: new FakeRoom().asRoom(),
    connect: jest.fn(connect),
    shutdown: (reason: string) => void shutdowns.push(reason),
    addShutdownCallback: (callback: (reason: string) => Promise<void>) => void callbacks.push(callback),
  } as unknown as JobContext;
  /** What agents-js does once the job ends, the entry having thrown or not: every shutdown callback, in order. */
  const end = async (reason: string) => {
    for (const callback of callbacks) await callback(reason);
  };
  return { ctx, shutdowns, end };
}

describe('a translator job releases what it opened, and leaves when the worker drains', () => {
  const prefix = `test-agent-shutdown-${randomBytes(4).toString('hex')}`;
  const saved = { ...process.env };
  const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-shutdown-'));
  const socketPath = path.join(dir, 'load.sock');
  const connection = new IORedis('redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
  const events = new Queue<TranslatorEventJob>(QUEUES.translatorEvents, { connection, prefix });
  let server: LoadChannelServer;

  const reported = async () => (await events.getJobs(['waiting', 'delayed', 'prioritized'])).map((job) => job.data.type);

  beforeAll(async () => {
    initializeLogger({ pretty: false, level: 'fatal' });
    // A hosted pipeline serves any pair without local tools; nothing reaches OpenAI before a speaker publishes.
    process.env = {
      ...saved,
      TRANSLATOR_PIPELINE: 'openai-realtime',
      OPENAI_API_KEY: 'sk-test',
      REDIS_URL: 'redis://127.0.0.1:6379',
      QUEUE_PREFIX: prefix,
      TRANSLATOR_LEAVE_AFTER_MS: '600000',
      [LOAD_SOCKET_ENV]: socketPath,
    };
    server = new LoadChannelServer(new StreamBudget(4), socketPath);
    await server.listen();
    await events.waitUntilReady();
  });
  afterEach(async () => {
    await events.obliterate({ force: true });
  });
  afterAll(async () => {
    process.env = saved;
    await server.close();
    await events.close();
    await connection.quit();
    rmSync(dir, { recursive: true, force: true });
    await dispose(); // the FFI server keeps the process alive until disposed
  });

  it('a join that fails (LiveKit unreachable) releases the Redis connections, the worker channel and the timers it had opened', async () => {
    const before = openHandles();
    const { ctx, shutdowns, end } = jobContext(async () => {
      throw new Error('LiveKit unreachable');
    });

    await expect(agent.entry(ctx)).rejects.toThrow('LiveKit unreachable');
    expect(openHandles()).not.toEqual(before); // the job had opened its connections and timers
    await end('job crashed');

    await until(() => JSON.stringify(openHandles()) === JSON.stringify(before));
    expect(openHandles()).toEqual(before);
    // It never joined, so no "joined" and no "left" is reported for it.
    expect(await reported()).toEqual([]);
    expect(shutdowns).toEqual([]);
  });

  it("the worker's drain (its SIGTERM, told over the load channel) makes the room finish and leave, then everything is released", async () => {
    const before = openHandles();
    const { ctx, shutdowns, end } = jobContext(async () => undefined);

    await agent.entry(ctx);
    expect(await reported()).toEqual(['joined']);
    server.drain();
    await until(() => shutdowns.length > 0);
    expect(shutdowns).toEqual(['worker draining']);
    await end('worker draining');

    await until(() => JSON.stringify(openHandles()) === JSON.stringify(before));
    expect(openHandles()).toEqual(before);
    expect((await reported()).sort()).toEqual(['joined', 'left']);
  });
});
