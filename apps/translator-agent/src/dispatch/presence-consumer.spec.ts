import { QUEUES, TRANSLATOR_JOBS, type TranslatorDismissJob, type TranslatorDispatchJob } from '@app/contracts';
import { Queue } from 'bullmq';
import IORedis, { type Redis } from 'ioredis';
import { randomBytes, randomUUID } from 'node:crypto';
import { startLiveKitDouble, type LiveKitDouble } from '../../../api/test/support/livekit-double';
import { LiveKitPresenceGateway } from './livekit-presence';
import { PresenceConsumer, retryDelayMs, type PresenceLogger } from './presence-consumer';

/** Real Redis (REDIS_URL) with a unique BullMQ prefix, and the LiveKit double of the API tests. */
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

interface Harness {
  livekit: LiveKitDouble;
  redis: Redis;
  queue: Queue;
  consumer: PresenceConsumer;
  logs: { level: string; message: string }[];
}

let h: Harness;
const running: Harness[] = [];

async function start(options: { maxAttempts?: number; concurrency?: number } = {}): Promise<Harness> {
  const livekit = await startLiveKitDouble();
  const redis = new IORedis(REDIS_URL, { maxRetriesPerRequest: null });
  const prefix = `trk_agent_test_${randomBytes(4).toString('hex')}`;
  const logs: Harness['logs'] = [];
  const logger: PresenceLogger = {
    info: (message) => logs.push({ level: 'info', message }),
    warn: (message) => logs.push({ level: 'warn', message }),
    error: (message) => logs.push({ level: 'error', message }),
  };
  const consumer = new PresenceConsumer({
    connection: redis,
    prefix,
    gateway: new LiveKitPresenceGateway(livekit.url, livekit.apiKey, livekit.apiSecret),
    logger,
    backoffMs: 10,
    maxBackoffMs: 40,
    concurrency: options.concurrency ?? 8,
    ...(options.maxAttempts !== undefined ? { maxAttempts: options.maxAttempts } : {}),
  });
  consumer.start();
  const queue = new Queue(QUEUES.translatorPresence, { connection: redis, prefix });
  const started = { livekit, redis, queue, consumer, logs };
  running.push(started);
  return started;
}

afterEach(async () => {
  for (const started of running.splice(0)) {
    await started.consumer.close();
    await started.queue.obliterate({ force: true });
    await started.queue.close();
    await started.redis.quit();
    await started.livekit.close();
  }
});

function room() {
  const roomId = randomUUID();
  return { roomId, livekitRoom: `org.${roomId}` };
}

const dispatchJob = (
  r: ReturnType<typeof room>,
  generation: number,
  languages: [string, string] = ['de', 'en'],
): TranslatorDispatchJob => ({
  ...r,
  generation,
  languages,
  mode: 'dual',
  glossaries: { version: 0, directions: [] },
});
const dismissJob = (r: ReturnType<typeof room>, generation: number): TranslatorDismissJob => ({ ...r, generation });

/** Enqueues like the API's outbox: jobId `${roomId}.${generation}.dispatch|dismiss` (plus a suffix for re-deliveries). */
async function enqueue(kind: 'dispatch' | 'dismiss', data: TranslatorDispatchJob | TranslatorDismissJob, suffix = '') {
  await h.queue.add(TRANSLATOR_JOBS[kind], data, { jobId: `${data.roomId}.${data.generation}.${kind}${suffix}`, removeOnFail: 5000 });
}

async function settle(expected: number, timeoutMs = 10_000): Promise<{ completed: number; failed: number }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const counts = await h.queue.getJobCounts('completed', 'failed', 'active', 'wait', 'delayed');
    const completed = counts.completed ?? 0;
    const failed = counts.failed ?? 0;
    if (completed + failed >= expected) return { completed, failed };
    if (Date.now() > deadline) throw new Error(`jobs did not settle: ${JSON.stringify(counts)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('translator presence consumer (BullMQ → LiveKit double)', () => {
  it('dispatch creates exactly one dispatch of the translator, with languages, mode and room as metadata', async () => {
    h = await start();
    const r = room();
    await enqueue('dispatch', dispatchJob(r, 1));
    await settle(1);
    const creates = h.livekit.callsOf('CreateDispatch');
    expect(creates).toHaveLength(1);
    expect(creates[0]?.body).toMatchObject({ room: r.livekitRoom, agentName: 'translator' });
    expect(JSON.parse((creates[0]?.body as { metadata: string }).metadata)).toEqual({
      roomId: r.roomId,
      languages: ['de', 'en'],
      mode: 'dual',
    });
    expect(h.livekit.dispatches(r.livekitRoom)).toHaveLength(1);
  });

  it('a duplicated dispatch (redelivered under another job id) creates nothing more', async () => {
    h = await start();
    const r = room();
    await enqueue('dispatch', dispatchJob(r, 1));
    await enqueue('dispatch', dispatchJob(r, 1), '.again');
    await enqueue('dispatch', dispatchJob(r, 1)); // same job id: a no-op in BullMQ itself
    await settle(2);
    expect(h.livekit.callsOf('CreateDispatch')).toHaveLength(1);
    expect(h.livekit.dispatches(r.livekitRoom)).toHaveLength(1);
  });

  it('a dismiss that overtook its older dispatch leaves no translator', async () => {
    h = await start();
    const r = room();
    await enqueue('dismiss', dismissJob(r, 2));
    await settle(1);
    await enqueue('dispatch', dispatchJob(r, 1));
    await settle(2);
    expect(h.livekit.callsOf('CreateDispatch')).toHaveLength(0);
    expect(h.livekit.dispatches(r.livekitRoom)).toHaveLength(0);
    expect(h.logs.some((l) => l.message.includes('dropped stale translator translator.dispatch g1'))).toBe(true);
  });

  it('dispatch, dismiss, dispatch arriving at once in reverse order end with exactly one translator, created once', async () => {
    h = await start();
    const r = room();
    await Promise.all([
      enqueue('dispatch', dispatchJob(r, 3)),
      enqueue('dismiss', dismissJob(r, 2)),
      enqueue('dispatch', dispatchJob(r, 1)),
    ]);
    await settle(3);
    expect(h.livekit.callsOf('CreateDispatch')).toHaveLength(1);
    expect(h.livekit.dispatches(r.livekitRoom)).toHaveLength(1);
  });

  it('many rooms, each with a shuffled burst of duplicated jobs, each end as their newest job says', async () => {
    h = await start({ concurrency: 16 });
    const rooms = Array.from({ length: 10 }, room);
    const jobs = rooms.flatMap((r, i) => {
      const last = i % 2 === 0 ? 4 : 5; // even rooms end dismissed (g4), odd rooms end dispatched (g5)
      return Array.from({ length: last }, (_, g) => g + 1).flatMap((g) => {
        const kind = g % 2 === 1 ? ('dispatch' as const) : ('dismiss' as const);
        const data = kind === 'dispatch' ? dispatchJob(r, g) : dismissJob(r, g);
        return [() => enqueue(kind, data), () => enqueue(kind, data, '.dup')];
      });
    });
    jobs.sort(() => Math.random() - 0.5);
    await Promise.all(jobs.map((add) => add()));
    await settle(jobs.length, 20_000);
    rooms.forEach((r, i) => {
      expect(h.livekit.dispatches(r.livekitRoom)).toHaveLength(i % 2 === 0 ? 0 : 1);
    });
  });

  it('dismiss deletes the dispatch and removes the agent participant, exactly once under a duplicate', async () => {
    h = await start();
    const r = room();
    await enqueue('dispatch', dispatchJob(r, 1));
    await settle(1);
    h.livekit.addParticipant(r.livekitRoom, { identity: 'agent-AJ_1', kind: 'AGENT' });
    h.livekit.addParticipant(r.livekitRoom, { identity: 'ada', kind: 'STANDARD' });
    const [dispatch] = h.livekit.dispatches(r.livekitRoom);
    await enqueue('dismiss', dismissJob(r, 2));
    await enqueue('dismiss', dismissJob(r, 2), '.again');
    await settle(3);
    expect(h.livekit.callsOf('DeleteDispatch').map((c) => c.body)).toEqual([{ dispatchId: dispatch?.id, room: r.livekitRoom }]);
    expect(h.livekit.callsOf('RemoveParticipant').map((c) => c.body)).toEqual([{ room: r.livekitRoom, identity: 'agent-AJ_1' }]);
    expect(h.livekit.dispatches(r.livekitRoom)).toHaveLength(0);
    expect(h.livekit.participants(r.livekitRoom).map((p) => p.identity)).toEqual(['ada']);
  });

  it('a new language pair replaces the translator', async () => {
    h = await start();
    const r = room();
    await enqueue('dispatch', dispatchJob(r, 1, ['de', 'en']));
    await settle(1);
    h.livekit.addParticipant(r.livekitRoom, { identity: 'agent-AJ_1', kind: 'AGENT' });
    await enqueue('dispatch', dispatchJob(r, 3, ['en', 'fr']));
    await settle(2);
    const [only] = h.livekit.dispatches(r.livekitRoom);
    expect(h.livekit.dispatches(r.livekitRoom)).toHaveLength(1);
    expect(JSON.parse(only?.metadata ?? '{}')).toMatchObject({ languages: ['en', 'fr'] });
    expect(h.livekit.callsOf('RemoveParticipant')).toHaveLength(1);
  });

  it('a failing LiveKit call is retried with backoff until it succeeds, still creating one dispatch', async () => {
    h = await start();
    const r = room();
    h.livekit.failNext('CreateDispatch', 2);
    await enqueue('dispatch', dispatchJob(r, 1));
    const { completed } = await settle(1);
    expect(completed).toBe(1);
    expect(h.livekit.callsOf('CreateDispatch').map((c) => c.status)).toEqual([503, 503, 200]);
    expect(h.livekit.dispatches(r.livekitRoom)).toHaveLength(1);
    expect(h.logs.filter((l) => l.level === 'warn')).toHaveLength(2);
  });

  it('a job that finally fails is logged with its room and kept as failed', async () => {
    h = await start({ maxAttempts: 3 });
    const r = room();
    h.livekit.failNext('*', 100);
    await enqueue('dispatch', dispatchJob(r, 1));
    const { failed } = await settle(1);
    expect(failed).toBe(1);
    const [job] = await h.queue.getFailed();
    expect(job?.id).toBe(`${r.roomId}.1.dispatch`);
    expect(job?.attemptsStarted).toBe(3);
    const errors = h.logs.filter((l) => l.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]?.message).toContain(r.roomId);
    expect(h.livekit.dispatches(r.livekitRoom)).toHaveLength(0);
  });
});

describe('retryDelayMs', () => {
  it.each([
    [1, 1000],
    [2, 2000],
    [3, 4000],
    [10, 60000],
  ])('attempt %i waits %i ms', (attempt, delay) => {
    expect(retryDelayMs(attempt, 1000, 60_000)).toBe(delay);
  });
});
