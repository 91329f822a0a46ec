import { QUEUES, type TranslatorEventJob } from '@app/contracts';
import { initializeLogger, type JobContext } from '@livekit/agents';
import { Queue } from 'bullmq';
import IORedis from 'ioredis';
import { randomBytes } from 'node:crypto';
import agent from './agent';
import { dispatchMetadata } from './dispatch/presence-plan';

/** What the entry writes to its log (agents-js's pino logger, one JSON line per record). */
function captureLog() {
  const lines: { level: number; msg: string }[] = [];
  const write = process.stdout.write.bind(process.stdout);
  const spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array, ...rest: unknown[]) => {
    for (const line of String(chunk).split('\n').filter(Boolean)) {
      try {
        lines.push(JSON.parse(line) as { level: number; msg: string });
      } catch {
        return write(chunk, ...(rest as [BufferEncoding]));
      }
    }
    return true;
  });
  return { lines, restore: () => spy.mockRestore() };
}

/** The job as agents-js hands it to the entry, without a LiveKit server: it records how the job ends. */
function jobContext(metadata: string) {
  const shutdowns: string[] = [];
  const connect = jest.fn(async () => undefined);
  const ctx = {
    job: { id: `AJ_${randomBytes(4).toString('hex')}`, metadata, room: { name: 'lk-room-1' } },
    connect,
    shutdown: (reason: string) => void shutdowns.push(reason),
    addShutdownCallback: () => undefined,
  } as unknown as JobContext;
  return { ctx, shutdowns, connect };
}

describe('the agent entry in a room whose pair the local pipeline cannot serve', () => {
  const prefix = `test-agent-entry-${randomBytes(4).toString('hex')}`;
  const saved = { ...process.env };
  const connection = new IORedis('redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
  const events = new Queue<TranslatorEventJob>(QUEUES.translatorEvents, { connection, prefix });

  beforeAll(() => {
    initializeLogger({ pretty: false, level: 'info' });
    process.env = { ...saved, TRANSLATOR_PIPELINE: 'local', REDIS_URL: 'redis://127.0.0.1:6379', QUEUE_PREFIX: prefix };
    delete process.env.OPENAI_API_KEY;
  });
  afterAll(async () => {
    process.env = saved;
    await events.obliterate({ force: true });
    await events.close();
    await connection.quit();
  });

  it('logs one line naming the refused directions, reports them as translation stats and leaves without joining', async () => {
    const { ctx, shutdowns, connect } = jobContext(dispatchMetadata({ roomId: 'room-de-fr', languages: ['de', 'fr'], mode: 'dual' }));
    const log = captureLog();
    try {
      await agent.entry(ctx);
    } finally {
      log.restore();
    }

    const warnings = log.lines.filter((l) => l.level >= 40);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({
      msg: expect.stringMatching(
        /^translator: the pipeline \(.*\) cannot translate de>fr or fr>de \(no PocketSphinx recognizer for "de" .*TRANSLATOR_STT=.*\); leaving the room$/,
      ),
      roomId: 'room-de-fr',
      refused: ['de>fr', 'fr>de'],
    });
    expect(warnings[0]!.msg).not.toContain('\n');

    const reported = (await events.getJobs(['waiting', 'delayed', 'prioritized'])).map((job) => job.data);
    expect(reported.sort((a, b) => ('direction' in a && 'direction' in b ? a.direction.localeCompare(b.direction) : 0))).toEqual(
      ['de>fr', 'fr>de'].map((direction) => ({
        type: 'latency',
        roomId: 'room-de-fr',
        livekitRoom: 'lk-room-1',
        at: expect.any(String),
        direction,
        p50Ms: 0,
        p95Ms: 0,
        samples: 0,
        audioSeconds: 0,
      })),
    );
    // Refused is not a crash: the job ends itself, never having joined, and no "joined" is reported.
    expect(connect).not.toHaveBeenCalled();
    expect(shutdowns).toEqual(['language pair not supported by the pipeline']);
  }, 30_000);
});
