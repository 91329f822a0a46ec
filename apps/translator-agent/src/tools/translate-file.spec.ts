import { QUEUES, type TranscriptSegmentReport, type TranslatorEventJob } from '@app/contracts';
import { Queue, Worker } from 'bullmq';
import IORedis from 'ioredis';
import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { LIBRIVOX, TESTDATA, YOUNG_MAN_IN_SPANISH } from '../../test/support/local-speech';
import { RealtimeTranslationStandIn } from '../../test/support/realtime-translation-standin';
import { deleteQueueKeys } from '../../test/support/recorded-room';
import { OUTPUT_SAMPLE_RATE } from '../translation/room-translator';
import { parseWav } from './wav';
import { wordErrorRate } from './wer';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../../../..');
const CLIP = 'sense_and_sensibility_01_austen_64kb-0880'; // "he was not an ill disposed young man", 3 s

/** `translate:file --room` on the recorded clip, reporting on `redisUrl` under `prefix`. */
function reportInto(roomId: string, redisUrl: string, prefix: string, env: NodeJS.ProcessEnv = {}) {
  const args = ['--from', 'en', '--to', 'es', '--in', `${LIBRIVOX}/${CLIP}.wav`, '--room', roomId, '--identity', 'alice'];
  return run('npm', ['run', '-s', 'translate:file', '--', ...args], {
    cwd: ROOT,
    env: { ...process.env, TRANSLATOR_PIPELINE: 'local', OPENAI_API_KEY: '', REDIS_URL: redisUrl, QUEUE_PREFIX: prefix, ...env },
  });
}

describe('npm run -s translate:file', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'translate-file-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('turns a recorded English clip (resampled from 44.1 kHz stereo) into Spanish speech and one JSON line', async () => {
    // Any rate and channels: the clip as a 44.1 kHz stereo file.
    const input = path.join(dir, 'speech.wav');
    await run('sox', [`${LIBRIVOX}/${CLIP}.wav`, '-r', '44100', '-c', '2', input]);
    const output = path.join(dir, 'translated.wav');
    const started = Date.now();
    const { stdout } = await run(
      'npm',
      ['run', '-s', 'translate:file', '--', '--from', 'en', '--to', 'es', '--in', input, '--out', output],
      {
        cwd: ROOT,
        env: { ...process.env, TRANSLATOR_PIPELINE: 'local', OPENAI_API_KEY: '' },
      },
    );
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const result = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(Object.keys(result).sort()).toEqual([
      'chunks_spoken',
      'committed_text',
      'first_audio_ms',
      'glossaries',
      'input_seconds',
      'output_seconds',
      'revised_words',
      'speech_end_after_input_ms',
      'transcript',
      'translation',
      'word_lag_ms',
    ]);
    expect(wordErrorRate('he was not an ill disposed young man', String(result.transcript))).toBeLessThanOrEqual(0.4);
    expect(result.translation).toMatch(YOUNG_MAN_IN_SPANISH);
    expect(result.input_seconds).toBeCloseTo(2.99, 2);
    const written = parseWav(readFileSync(output));
    expect(written).toMatchObject({ sampleRate: OUTPUT_SAMPLE_RATE, channels: 1 });
    expect(written.samples.length / OUTPUT_SAMPLE_RATE).toBeCloseTo(Number(result.output_seconds), 2);
    expect(Number(result.output_seconds)).toBeGreaterThan(1);
    // From the end of the speech to the first translated frame: positive, and within the run itself
    // (a consistency bound, not a speed target: latency is measured by npm run bench).
    expect(Number(result.first_audio_ms)).toBeGreaterThan(0);
    expect(Number(result.first_audio_ms)).toBeLessThan(Date.now() - started);
    // Every word waits at least for the end of its own utterance: the lags are ordered, positive, within the run.
    const lag = result.word_lag_ms as { p50: number; p95: number; max: number };
    expect(Object.keys(lag).sort()).toEqual(['max', 'p50', 'p95']);
    expect(0 < lag.p50 && lag.p50 <= lag.p95 && lag.p95 <= lag.max && lag.max < Date.now() - started).toBe(true);
    expect(Number(result.chunks_spoken)).toBeGreaterThanOrEqual(1);
    expect(result.glossaries).toEqual({ from: 'none', entries: {} });
  }, 90_000);

  it('with --reference and --against-sentence, says what the listener heard: WER of the words translated and agreement with sentence mode', async () => {
    const reference = 'he was not an ill disposed young man';
    const { stdout } = await run(
      'npm',
      [
        'run',
        '-s',
        'translate:file',
        '--',
        '--from',
        'en',
        '--to',
        'es',
        '--in',
        `${LIBRIVOX}/${CLIP}.wav`,
        '--timing',
        'simultaneous',
      ].concat(['--reference', reference, '--against-sentence']),
      { cwd: ROOT, env: { ...process.env, TRANSLATOR_PIPELINE: 'local', OPENAI_API_KEY: '' } },
    );
    const result = JSON.parse(stdout) as {
      transcript: string;
      translation: string;
      committed_text: string;
      revised_words: number;
      wer: { committed: number; final: number };
      agreement_with_sentence: { word_share: number; chrf: number; translation: string };
    };
    // The words sent to translation are those the final recognition kept.
    expect(result.committed_text).toBe(result.transcript);
    expect(result.revised_words).toBe(0);
    expect(result.wer.committed).toBe(result.wer.final);
    expect(result.wer.final).toBeCloseTo(wordErrorRate(reference, result.transcript), 3);
    // Sentence mode's translation of the same recording, and how much of the chunked one it shares.
    expect(result.agreement_with_sentence.translation).toMatch(YOUNG_MAN_IN_SPANISH);
    expect(result.agreement_with_sentence.word_share).toBeGreaterThan(0);
    expect(result.agreement_with_sentence.word_share).toBeLessThanOrEqual(1);
    expect(result.agreement_with_sentence.chrf).toBeGreaterThan(0);
    expect(result.agreement_with_sentence.chrf).toBeLessThanOrEqual(100);
  }, 90_000);

  it('refuses --against-sentence in sentence timing: there is nothing to compare', async () => {
    const failed = await run(
      'npm',
      [
        'run',
        '-s',
        'translate:file',
        '--',
        '--from',
        'en',
        '--to',
        'es',
        '--in',
        `${LIBRIVOX}/${CLIP}.wav`,
        '--timing',
        'sentence',
        '--against-sentence',
      ],
      { cwd: ROOT, env: { ...process.env, TRANSLATOR_PIPELINE: 'local', OPENAI_API_KEY: '' } },
    ).catch((error: unknown) => error as { code: number; stderr: string });
    expect(failed).toMatchObject({ code: 2 });
    expect((failed as { stderr: string }).stderr).toMatch(/^translate:file: --against-sentence compares simultaneous timing/m);
  }, 30_000);

  describe('--glossary <file>', () => {
    /** "go forward ten meters" (goforward.raw) as a WAV, and a glossary file beside it. */
    async function goForwardWith(glossary: string, name: string) {
      const input = path.join(dir, 'goforward.wav');
      await run('sox', ['-t', 'raw', '-r', '16000', '-e', 'signed', '-b', '16', '-c', '1', `${TESTDATA}/goforward.raw`, input]);
      const file = path.join(dir, name);
      writeFileSync(file, glossary);
      return run('npm', ['run', '-s', 'translate:file', '--', '--from', 'en', '--to', 'es', '--in', input, '--glossary', file], {
        cwd: ROOT,
        env: { ...process.env, TRANSLATOR_PIPELINE: 'local', OPENAI_API_KEY: '' },
      });
    }

    it('applies a CSV glossary as a room applies it: "forward" comes out as "adelante"', async () => {
      const plain = await goForwardWith('en,es\n', 'empty.csv');
      expect(JSON.parse(plain.stdout).translation).toMatch(/de frente/);

      const { stdout } = await goForwardWith('en,es\nforward,adelante\n', 'robots.csv');
      const result = JSON.parse(stdout) as Record<string, unknown>;
      expect(result.transcript).toBe('Go forward ten meters');
      expect(result.translation).toMatch(/\badelante\b/);
      expect(result.translation).not.toMatch(/de frente/);
      expect(result.glossaries).toEqual({ from: 'file', entries: { 'en>es': 1, 'es>en': 1 } });
    }, 90_000);

    it('reads TSV by its name, with the do_not_translate column', async () => {
      const { stdout } = await goForwardWith('en\tdo_not_translate\nmeters\ttrue\n', 'kept.tsv');
      const result = JSON.parse(stdout) as Record<string, unknown>;
      expect(result.translation).toMatch(/\bmeters\b/);
      expect(result.glossaries).toEqual({ from: 'file', entries: { 'en>es': 1, 'es>en': 0 } });
    }, 90_000);

    it('refuses a file with a bad row, naming its line, as the API would (exit 1)', async () => {
      const failed = await goForwardWith('en,es\nforward,adelante\n,\n', 'bad.csv').catch(
        (error: { code: number; stderr: string }) => error,
      );
      expect(failed).toMatchObject({ code: 1 });
      expect((failed as { stderr: string }).stderr).toMatch(/^translate:file: --glossary .*bad\.csv: not a glossary \(CSV\): line 3: /m);
    }, 90_000);
  });

  it("--room: the final segments go into that room's transcript as segment jobs on the translator-events queue", async () => {
    const redisUrl = 'redis://127.0.0.1:6379';
    const prefix = `trk_test_file_${randomBytes(4).toString('hex')}`;
    const roomId = randomUUID();
    const connection = new IORedis(redisUrl, { maxRetriesPerRequest: null });
    const queue = new Queue<TranslatorEventJob>(QUEUES.translatorEvents, { connection, prefix });
    try {
      const started = Date.now();
      const { stdout, stderr } = await reportInto(roomId, redisUrl, prefix);
      const ended = Date.now();
      const result = JSON.parse(stdout) as Record<string, unknown>;
      expect(result.segments_reported).toBe(1);
      // where it reported, and that nothing consumes that queue yet
      expect(result.reported_to).toEqual({ redis: redisUrl, queue: `${prefix}:translator-events`, workers: 0 });
      expect(stderr).toContain(`warning: no API worker consumes ${prefix}:translator-events on ${redisUrl}`);
      const jobs = await queue.getJobs(['waiting'], 0, -1, true);
      expect(jobs.map((j) => j.name)).toEqual(['segment']);
      const report = jobs[0]!.data as TranscriptSegmentReport;
      expect(report).toEqual({
        type: 'segment',
        roomId,
        livekitRoom: '',
        at: expect.any(String),
        segmentId: expect.stringMatching(/^file-[0-9a-f]{8}-1$/),
        participantIdentity: 'alice',
        language: 'en',
        text: result.transcript,
        translation: { language: 'es', text: result.translation },
        startedAt: expect.any(String),
        endedAt: expect.any(String),
        // Simultaneous timing (the local recognizer's default): the words heard translated, and those revised.
        committed: { text: result.committed_text, revisedWords: expect.any(Array) },
      });
      expect(report.committed?.revisedWords).toHaveLength(result.revised_words as number);
      expect(jobs[0]!.id).toBe(`${report.segmentId.replace(/-1$/, '')}.segment.${report.segmentId}`);
      // Paced as a microphone: the words' wall-clock bounds, inside the run, in order.
      expect(started).toBeLessThan(Date.parse(report.startedAt));
      expect(Date.parse(report.startedAt)).toBeLessThan(Date.parse(report.endedAt));
      expect(Date.parse(report.endedAt)).toBeLessThanOrEqual(Date.parse(report.at));
      expect(Date.parse(report.at)).toBeLessThanOrEqual(ended);
    } finally {
      await queue.close();
      await connection.quit();
      await deleteQueueKeys(redisUrl, prefix);
    }
  }, 90_000);

  it('--room: says nothing more when an API worker consumes the queue; warns when REDIS_URL is not set', async () => {
    const redisUrl = 'redis://127.0.0.1:6379';
    const prefix = `trk_test_file_${randomBytes(4).toString('hex')}`;
    const connection = new IORedis(redisUrl, { maxRetriesPerRequest: null });
    // A worker of the queue, as the API's (not running jobs: the segment stays in the queue).
    const worker = new Worker(QUEUES.translatorEvents, null, { connection, prefix, autorun: false });
    try {
      await worker.waitUntilReady();
      const { stdout, stderr } = await reportInto(randomUUID(), redisUrl, prefix, { REDIS_URL: '' });
      expect(JSON.parse(stdout)).toMatchObject({ segments_reported: 1, reported_to: { redis: redisUrl, workers: 1 } });
      expect(stderr).not.toContain('no API worker');
      expect(stderr).toContain(`REDIS_URL is not set (nor in .env): reporting to ${redisUrl}, the default`);
    } finally {
      await worker.close();
      await connection.quit();
      await deleteQueueKeys(redisUrl, prefix);
    }
  }, 90_000);

  it("TRANSLATOR_PIPELINE=openai-realtime (against the protocol stand-in): the same JSON, word lag measured from each segment's speech onset", async () => {
    const standIn = new RealtimeTranslationStandIn([
      { input: 'he was not an ill disposed young man', output: 'no era un joven mal dispuesto' },
    ]);
    try {
      const baseUrl = await standIn.start();
      const started = Date.now();
      const { stdout } = await run(
        'npm',
        ['run', '-s', 'translate:file', '--', '--from', 'en', '--to', 'es', '--in', `${LIBRIVOX}/${CLIP}.wav`],
        {
          cwd: ROOT,
          env: { ...process.env, TRANSLATOR_PIPELINE: 'openai-realtime', OPENAI_API_KEY: 'sk-standin', OPENAI_BASE_URL: baseUrl },
          timeout: 60_000,
        },
      );
      const result = JSON.parse(stdout) as Record<string, unknown>;
      expect(standIn.connections).toBe(1);
      expect(result.transcript).toMatch(/^he was not an/);
      expect(result.translation).toMatch(/^no era un joven/);
      expect(Number(result.output_seconds)).toBeGreaterThan(1);
      expect(Number(result.chunks_spoken)).toBeGreaterThanOrEqual(1);
      expect(Number(result.first_audio_ms)).toBeGreaterThanOrEqual(0);
      const lag = result.word_lag_ms as { p50: number; p95: number; max: number };
      expect(0 < lag.p50 && lag.p50 <= lag.p95 && lag.p95 <= lag.max && lag.max < Date.now() - started).toBe(true);
    } finally {
      await standIn.stop();
    }
  }, 90_000);

  it('--help shows how to report into a room', async () => {
    const { stdout } = await run('npm', ['run', '-s', 'translate:file', '--', '--help'], { cwd: ROOT });
    expect(stdout).toContain('--room <room_id>');
    expect(stdout).toContain('--identity <name>');
  }, 30_000);

  it.each([
    [['--from', 'en', '--to', 'es'], 2, 'usage'],
    [['--from', 'en', '--to', 'es', '--in', 'x.wav', '--identity', 'alice'], 2, '--identity and --livekit-room go with --room'],
    [['--from', 'en', '--to', 'de', '--in', 'x.wav'], 1, 'cannot translate en>de'],
    [['--from', 'en', '--to', 'es', '--in', 'x.wav', '--room', 'r1', '--glossary', 'g.csv'], 2, '--glossary applies a file without a room'],
    [['--from', 'en', '--to', 'es', '--in', 'x.wav', '--api-key', 'k'], 2, '--api-key goes with --room'],
    // The missing engine, and the env that selects a hosted provider for it.
    [
      ['--from', 'es', '--to', 'en', '--in', 'x.wav'],
      1,
      'cannot translate es>en: no PocketSphinx recognizer for "es" speech (Debian ships only en-us): set TRANSLATOR_STT=deepgram',
    ],
    [['--from', 'en', '--to', 'es', '--in', path.join(ROOT, 'package.json')], 1, 'not a WAV file'],
  ])(
    'refuses %j with exit code %i and one line',
    async (args, code, message) => {
      const failed = await run('npm', ['run', '-s', 'translate:file', '--', ...args], {
        cwd: ROOT,
        env: { ...process.env, TRANSLATOR_PIPELINE: 'local', OPENAI_API_KEY: '' },
      }).then(
        () => null,
        (error: { code: number; stderr: string; stdout: string }) => error,
      );
      expect(failed).toMatchObject({ code, stdout: '' });
      expect(failed?.stderr).toContain(message);
    },
    30_000,
  );
});
