/**
 * `npm run -s translate:file -- --from en --to es --in speech.wav --out translated.wav`: the
 * speaker pipeline over a WAV file, without LiveKit. Prints one JSON object; problems go to stderr
 * in one line with exit code 1 (2 for bad arguments). With `--room <room_id>`, the file's final
 * segments also go into that room's transcript, as the translator reports a live room's (the
 * translator-events queue on REDIS_URL under QUEUE_PREFIX, as the agent); its JSON then says where it
 * reported, and stderr warns when REDIS_URL is not set or no API worker consumes that queue.
 */
import { QUEUES, type RoomGlossaries } from '@app/contracts';
import { compileRoomGlossaries } from '@app/domain';
import { initializeLogger } from '@livekit/agents';
import { dispose } from '@livekit/rtc-node';
import { Queue } from 'bullmq';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import IORedis from 'ioredis';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { describePipeline, loadAgentConfig, TIMINGS } from '../config';
import { TranslatorEventsReporter } from '../events/translator-events';
import { configuredPipelines, fallbackMessage, planDirections } from '../translation/direction-plan';
import { createSpeechProviders } from '../translation/providers';
import { OUTPUT_SAMPLE_RATE } from '../translation/room-translator';
import { chunkPolicyFor } from '../translation/stable-chunks';
import { agreementWith } from './agreement';
import { translateFile } from './file-translation';
import { glossaryFromFile } from './glossary-file';
import { roomGlossariesOverApi } from './room-glossaries-over-api';
import { encodeWav, parseWav } from './wav';
import { wordErrorRate } from './wer';

const USAGE = [
  'usage: npm run -s translate:file -- --from en --to es --in speech.wav [--out translated.wav] [--timing simultaneous|sentence] [--reference <text>] [--against-sentence] [--room <room_id> [--identity alice] [--api-key <key>]] [--glossary <file.csv>]',
  '  --timing <timing>       simultaneous: speak stable chunks while the speaker goes on; sentence: each utterance once it ended',
  '                          (default TRANSLATOR_TIMING; simultaneous needs the local recognizer)',
  '  --reference <text>      what was said: adds "wer" of the words sent to translation (committed) and of the final recognition',
  "  --against-sentence      simultaneous timing: also translates the file in sentence timing (not paced) and adds the translation's",
  "                          agreement with it: the share of its words found in sentence mode's translation, and chrF",
  "  --room <room_id>        also add the final segments to that room's transcript (GET /v1/rooms/<room_id>/transcript),",
  '                          through the translator-events queue on REDIS_URL (prefix QUEUE_PREFIX), as the live translator does',
  '  --identity <name>       the speaker the segments are attributed to (default: file)',
  "  --livekit-room <name>   the room's LiveKit name, when known (the API finds the room by its id alone otherwise)",
  "  --api-key <key>         with --room: read the room's glossaries through the API (API_URL, default http://127.0.0.1:3000)",
  '                          and apply them as its translator would (default: API_KEY; without one they are not read)',
  "  --glossary <file>       apply a glossary from a CSV or TSV file (the API's import form), without a room",
].join('\n');

function fail(message: string, code = 1): never {
  process.stderr.write(`translate:file: ${message}\n`);
  process.exit(code);
}

async function main(): Promise<void> {
  initializeLogger({ pretty: false, level: 'warn' });
  let args;
  try {
    args = parseArgs({
      options: {
        from: { type: 'string' },
        to: { type: 'string' },
        in: { type: 'string' },
        out: { type: 'string' },
        room: { type: 'string' },
        identity: { type: 'string' },
        'livekit-room': { type: 'string' },
        timing: { type: 'string' },
        'api-key': { type: 'string' },
        glossary: { type: 'string' },
        reference: { type: 'string' },
        'against-sentence': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }).values;
  } catch (error) {
    fail(`${(error as Error).message}\n${USAGE}`, 2);
  }
  if (args.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (!args.from || !args.to || !args.in) fail(USAGE, 2);
  // `.env` under the environment, as the API and the agent read it: the same Redis and queue prefix.
  if (existsSync('.env')) process.loadEnvFile('.env');
  if (args.room === '' || ((args.identity !== undefined || args['livekit-room'] !== undefined) && !args.room)) {
    fail(`--identity and --livekit-room go with --room <room_id>\n${USAGE}`, 2);
  }
  if (args.glossary !== undefined && args.room) fail(`--glossary applies a file without a room: use one or the other\n${USAGE}`, 2);
  if (args['api-key'] !== undefined && !args.room) fail(`--api-key goes with --room <room_id>\n${USAGE}`, 2);
  if (args.timing !== undefined && !(TIMINGS as readonly string[]).includes(args.timing))
    fail(`--timing must be one of: ${TIMINGS.join(', ')}\n${USAGE}`, 2);
  const loaded = loadAgentConfig(args.timing ? { ...process.env, TRANSLATOR_TIMING: args.timing } : process.env);
  if (!loaded.ok) fail(loaded.problem);
  if (args['against-sentence'] && (loaded.config.pipeline.timing !== 'simultaneous' || loaded.config.pipeline.realtime))
    fail(
      `--against-sentence compares simultaneous timing with sentence timing: the pipeline runs in ${loaded.config.pipeline.timing}\n${USAGE}`,
      2,
    );
  const providers = createSpeechProviders(loaded.config.pipeline, OUTPUT_SAMPLE_RATE, (stage, error) =>
    process.stderr.write(`translate:file: ${stage} error: ${String((error as Error)?.message ?? error)}\n`),
  );
  // The realtime session (with a key) when it speaks the target; otherwise the stages, when they cover the direction.
  const hosted = loaded.config.pipeline.openai ? loaded.config.pipeline.realtime : null;
  const [choice] = planDirections([args.from, args.to], configuredPipelines({ realtime: hosted, providers }));
  if (choice!.pipeline === null) {
    const why = choice!.passedOver.map((p) => p.why).join('; ');
    fail(`the pipeline (${describePipeline(loaded.config.pipeline)}) cannot translate ${args.from}>${args.to}${why ? `: ${why}` : ''}`);
  }
  if (choice!.passedOver.length > 0) process.stderr.write(`translate:file: ${fallbackMessage(choice!)}\n`);
  let audio;
  try {
    audio = parseWav(readFileSync(args.in));
  } catch (error) {
    fail(`${args.in}: ${(error as Error).message}`);
  }
  const glossaries = await glossariesToApply(args, [args.from, args.to]);
  const { redisUrl, queuePrefix } = loaded.config;
  const reportedTo = args.room ? await reportingTarget(redisUrl, queuePrefix) : null;
  // Each run is its own session: its segment ids never collide with an earlier run's in the same room.
  const session = `file-${randomBytes(4).toString('hex')}`;
  const reporter = args.room
    ? new TranslatorEventsReporter(redisUrl, queuePrefix, { id: session, roomId: args.room, livekitRoom: args['livekit-room'] ?? '' })
    : null;
  let reported = 0;
  const realtime = choice!.pipeline === 'realtime' ? loaded.config.pipeline.realtime : null;
  try {
    const detail = await translateFile({
      from: args.from,
      to: args.to,
      audio,
      providers,
      sampleRate: OUTPUT_SAMPLE_RATE,
      simultaneous: chunkPolicyFor(loaded.config.pipeline.timing),
      ...(glossaries.applied ? { glossaries: glossaries.applied } : {}),
      realtime: realtime && {
        ...realtime,
        apiKey: loaded.config.pipeline.openai?.apiKey ?? '',
        inputTranscriptionModel: realtime.transcriptionModel,
      },
      // The realtime session's failures (refused, dropped, stalled) and what followed: one line each.
      ...(realtime
        ? { onError: (error: unknown) => process.stderr.write(`translate:file: ${String((error as Error)?.message ?? error)}\n`) }
        : {}),
      ...(reporter
        ? {
            identity: args.identity ?? 'file',
            segmentPrefix: session,
            report: async (segment) => {
              await reporter.segment(segment);
              reported += 1;
            },
          }
        : {}),
    });
    if (args.out) writeFileSync(args.out, encodeWav(detail.audio, detail.sampleRate));
    const sentence = args['against-sentence']
      ? await translateFile({
          from: args.from,
          to: args.to,
          audio,
          providers,
          sampleRate: OUTPUT_SAMPLE_RATE,
          paced: false,
          simultaneous: null,
          ...(glossaries.applied ? { glossaries: glossaries.applied } : {}),
        })
      : null;
    const result = {
      ...detail.result,
      ...(args.reference !== undefined
        ? {
            wer: {
              committed: rounded(wordErrorRate(args.reference, detail.result.committed_text)),
              final: rounded(wordErrorRate(args.reference, detail.result.transcript)),
            },
          }
        : {}),
      ...(sentence
        ? {
            agreement_with_sentence: {
              ...agreementWith(sentence.result.translation, detail.result.translation),
              translation: sentence.result.translation,
            },
          }
        : {}),
      glossaries: glossaries.summary,
    };
    process.stdout.write(`${JSON.stringify(reporter ? { ...result, segments_reported: reported, reported_to: reportedTo } : result)}\n`);
  } finally {
    await providers.close?.();
    await reporter?.close();
  }
}

interface GlossaryChoice {
  applied: RoomGlossaries | null;
  /** What the JSON line says was applied: where from, and how many entries per direction. */
  summary: { from: 'room' | 'file' | 'none'; entries: Record<string, number> } | { from: 'room'; not_read: string };
}

/** The glossaries the run applies: a room's (read through the API with a key), a file's, or none. */
async function glossariesToApply(
  args: { room?: string; glossary?: string; 'api-key'?: string },
  languages: [string, string],
): Promise<GlossaryChoice> {
  const counted = (applied: RoomGlossaries, from: 'room' | 'file'): GlossaryChoice => ({
    applied,
    summary: {
      from,
      entries: Object.fromEntries(applied.directions.map((d) => [`${d.sourceLanguage}>${d.targetLanguage}`, d.entries.length])),
    },
  });
  if (args.glossary !== undefined) {
    let bytes;
    try {
      bytes = readFileSync(args.glossary);
    } catch (error) {
      fail(`--glossary ${args.glossary}: ${(error as Error).message}`);
    }
    const parsed = glossaryFromFile(bytes, args.glossary);
    if (!parsed.ok) fail(`--glossary ${args.glossary}: ${parsed.problem}`);
    return counted(compileRoomGlossaries([parsed.entries], languages, 0), 'file');
  }
  if (!args.room) return { applied: null, summary: { from: 'none', entries: {} } };
  const apiKey = args['api-key'] ?? process.env.API_KEY?.trim();
  if (!apiKey) {
    process.stderr.write(
      "translate:file: warning: the room's glossaries were not read (no --api-key, no API_KEY): the file is translated without them.\n",
    );
    return { applied: null, summary: { from: 'room', not_read: 'no API key' } };
  }
  const apiUrl = process.env.API_URL?.trim() || 'http://127.0.0.1:3000';
  try {
    return counted(await roomGlossariesOverApi({ apiUrl, apiKey, roomId: args.room, languages }), 'room');
  } catch (error) {
    fail(`--room ${args.room}: its glossaries could not be read from ${apiUrl}: ${(error as Error).message}`);
  }
}

const rounded = (value: number) => Math.round(value * 1000) / 1000;

/** REDIS_URL as it may be printed: without its password. */
function shownUrl(redisUrl: string): string {
  try {
    const url = new URL(redisUrl);
    url.password = '';
    return url.toString().replace(/\/$/, '');
  } catch {
    return redisUrl.replace(/\/\/[^@/]*@/, '//');
  }
}

/**
 * Where `--room` reports: fails in one line at once rather than waiting for a Redis that is not there,
 * and warns when nothing would read the segments (REDIS_URL not set, or no API worker on the queue).
 */
async function reportingTarget(redisUrl: string, prefix: string): Promise<{ redis: string; queue: string; workers: number }> {
  const target = { redis: shownUrl(redisUrl), queue: `${prefix}:${QUEUES.translatorEvents}` };
  if (!process.env.REDIS_URL?.trim()) {
    process.stderr.write(
      `translate:file: REDIS_URL is not set (nor in .env): reporting to ${target.redis}, the default; set it as the API's.\n`,
    );
  }
  const client = new IORedis(redisUrl, { lazyConnect: true, connectTimeout: 3000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  let cause: Error | null = null;
  client.on('error', (error: Error) => (cause ??= error));
  try {
    await client.connect();
    await client.ping();
  } catch (error) {
    fail(`--room: Redis at REDIS_URL (${target.redis}) unreachable: ${(cause ?? (error as Error)).message}`);
  }
  const queue = new Queue(QUEUES.translatorEvents, { connection: client, prefix });
  try {
    // BullMQ names each worker's Redis connection after its queue: CLIENT LIST finds them.
    const workers = await queue.getWorkersCount();
    if (workers === 0) {
      process.stderr.write(
        `translate:file: warning: no API worker consumes ${target.queue} on ${target.redis}: the segments wait there until one runs ` +
          '(npm run dev, npm run start:worker or npm run start:api, with the same REDIS_URL and QUEUE_PREFIX).\n',
      );
    }
    return { ...target, workers };
  } finally {
    await queue.close();
    client.disconnect();
  }
}

main()
  .catch((error: unknown) => fail(String((error as Error)?.message ?? error)))
  .finally(() => void dispose());
