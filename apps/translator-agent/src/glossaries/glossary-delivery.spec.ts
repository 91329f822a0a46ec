import { QUEUES, TRANSLATOR_JOBS, type RoomGlossaries, type TranslatorDispatchJob, type TranslatorGlossaryJob } from '@app/contracts';
import { Queue } from 'bullmq';
import IORedis, { type Redis } from 'ioredis';
import { randomBytes, randomUUID } from 'node:crypto';
import { startLiveKitDouble, type LiveKitDouble } from '../../../api/test/support/livekit-double';
import { followGlossaries } from './followed-glossaries';
import { LiveKitPresenceGateway } from '../dispatch/livekit-presence';
import { PresenceConsumer } from '../dispatch/presence-consumer';
import { GlossaryFollower } from './glossary-follower';

/**
 * The translator's side of glossary delivery, through the real queue: the presence consumer keeps
 * what the API sends, and a room's job process (the follower) starts with it and hears every change.
 */
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** The spec's bound: a change reaches a live room's translator within 10 s. */
const CHANGE_REACHES_TRANSLATOR_MS = 10_000;

let livekit: LiveKitDouble;
let redis: Redis;
let prefix: string;
let consumer: PresenceConsumer;
let queue: Queue;
const followers: GlossaryFollower[] = [];

beforeEach(async () => {
  livekit = await startLiveKitDouble();
  redis = new IORedis(REDIS_URL, { maxRetriesPerRequest: null });
  prefix = `trk_glossary_test_${randomBytes(4).toString('hex')}`;
  const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
  consumer = new PresenceConsumer({
    connection: redis,
    prefix,
    gateway: new LiveKitPresenceGateway(livekit.url, livekit.apiKey, livekit.apiSecret),
    logger: quiet,
    backoffMs: 10,
  });
  consumer.start();
  queue = new Queue(QUEUES.translatorPresence, { connection: redis, prefix });
});

afterEach(async () => {
  for (const follower of followers.splice(0)) await follower.close();
  await consumer.close();
  await queue.obliterate({ force: true });
  await queue.close();
  await redis.quit();
  await livekit.close();
});

function glossaries(version: number, target: string): RoomGlossaries {
  const entry = { source: 'forward', target, doNotTranslate: false, caseSensitive: false, soundsLike: [], priority: 0 };
  return { version, directions: [{ sourceLanguage: 'en', targetLanguage: 'es', entries: [entry] }] };
}

function room() {
  const roomId = randomUUID();
  return { roomId, livekitRoom: `org.${roomId}` };
}

async function sendChange(r: ReturnType<typeof room>, change: RoomGlossaries): Promise<void> {
  const job: TranslatorGlossaryJob = { ...r, glossaries: change };
  await queue.add(TRANSLATOR_JOBS.glossary, job, { jobId: `${r.roomId}.glossaries.${change.version}` });
}

async function dispatch(r: ReturnType<typeof room>, change: RoomGlossaries): Promise<void> {
  const job: TranslatorDispatchJob = { ...r, generation: 1, languages: ['en', 'es'], mode: 'dual', glossaries: change };
  await queue.add(TRANSLATOR_JOBS.dispatch, job, { jobId: `${r.roomId}.1.dispatch` });
}

/**
 * A room's job process following its glossaries: `initial` is what it had once started (null: none),
 * `seen` what it was handed after that, in order.
 */
async function follow(r: ReturnType<typeof room>) {
  const handed: RoomGlossaries[] = [];
  const follower = new GlossaryFollower({ redisUrl: REDIS_URL, prefix, roomId: r.roomId, onChange: (g) => handed.push(g) });
  followers.push(follower);
  await follower.start();
  const initial = handed.at(-1) ?? null;
  const seen = handed;
  seen.splice(0);
  return { initial, seen };
}

async function until(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function settled(count: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const counts = await queue.getJobCounts('completed', 'failed');
    if ((counts.completed ?? 0) + (counts.failed ?? 0) >= count) return;
    if (Date.now() > deadline) throw new Error(`jobs did not settle: ${JSON.stringify(counts)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('glossary delivery to a room translator (BullMQ → presence consumer → job process)', () => {
  it('a translator placed by a dispatch starts with the glossaries the dispatch carried', async () => {
    const r = room();
    await dispatch(r, glossaries(3, 'adelante'));
    await settled(1);
    expect(livekit.dispatches(r.livekitRoom)).toHaveLength(1);
    const { initial } = await follow(r);
    expect(initial).toEqual(glossaries(3, 'adelante'));
  });

  it('a change to a live room reaches its translator through the queue within 10 s', async () => {
    const r = room();
    await dispatch(r, glossaries(1, 'de frente'));
    await settled(1);
    const { initial, seen } = await follow(r);
    expect(initial?.version).toBe(1);

    await sendChange(r, glossaries(2, 'adelante'));
    await until(() => seen.length === 1, CHANGE_REACHES_TRANSLATOR_MS);
    expect(seen).toEqual([glossaries(2, 'adelante')]);
  });

  it('changes delivered twice and out of order settle on the newest, each version handed on once', async () => {
    const r = room();
    await dispatch(r, glossaries(1, 'uno'));
    await settled(1);
    const { seen } = await follow(r);

    await sendChange(r, glossaries(4, 'cuatro'));
    await settled(2);
    await until(() => seen.length === 1, CHANGE_REACHES_TRANSLATOR_MS);
    // Older versions and a duplicate of the newest, arriving late: nothing changes.
    await sendChange(r, glossaries(2, 'dos'));
    await sendChange(r, glossaries(3, 'tres'));
    await queue.add(TRANSLATOR_JOBS.glossary, { ...r, glossaries: glossaries(4, 'cuatro') }, { jobId: `${r.roomId}.glossaries.4.again` });
    await settled(5);
    await sendChange(r, glossaries(5, 'cinco'));
    await until(() => seen.length === 2, CHANGE_REACHES_TRANSLATOR_MS);

    expect(seen.map((g) => g.version)).toEqual([4, 5]);
    const late = await follow(r);
    expect(late.initial).toEqual(glossaries(5, 'cinco'));
  });

  it('a late dispatch carrying older glossaries does not undo a newer change', async () => {
    const r = room();
    await sendChange(r, glossaries(7, 'adelante'));
    await settled(1);
    await dispatch(r, glossaries(6, 'de frente'));
    await settled(2);
    const { initial } = await follow(r);
    expect(initial?.version).toBe(7);
  });

  it('a translator started again (worker restart, late join) reads the current glossaries; a room without any reads none', async () => {
    const r = room();
    await dispatch(r, glossaries(1, 'de frente'));
    await sendChange(r, glossaries(2, 'adelante'));
    await settled(2);
    const first = await follow(r);
    await followers.splice(0)[0]?.close();
    expect(first.initial?.version).toBe(2);

    const again = await follow(r);
    expect(again.initial).toEqual(glossaries(2, 'adelante'));
    expect((await follow(room())).initial).toBeNull();
  });

  it("a room's job joins with the current glossaries and hands each change to its translator", async () => {
    const r = room();
    await dispatch(r, glossaries(1, 'de frente'));
    await settled(1);
    const quiet = { info: () => undefined, warn: () => undefined };
    const followed = await followGlossaries({ logger: quiet, config: { redisUrl: REDIS_URL, queuePrefix: prefix }, job: r });
    expect(followed.latest()).toEqual(glossaries(1, 'de frente'));

    const applied: RoomGlossaries[] = [];
    followed.applyTo({ setGlossaries: (g) => applied.push(g) });
    await sendChange(r, glossaries(2, 'adelante'));
    await until(() => applied.length === 2, CHANGE_REACHES_TRANSLATOR_MS);
    await followed.close();
    expect(applied.map((g) => g.version)).toEqual([1, 2]);
    expect(followed.latest()).toEqual(glossaries(2, 'adelante'));
  });
});
