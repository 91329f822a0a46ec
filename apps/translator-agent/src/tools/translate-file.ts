/**
 * `npm run -s translate:file -- --from en --to es --in speech.wav --out translated.wav`: the
 * speaker pipeline over a WAV file, without LiveKit. Prints one JSON object; problems go to stderr
 * in one line with exit code 1 (2 for bad arguments).
 */
import { initializeLogger } from '@livekit/agents';
import { dispose } from '@livekit/rtc-node';
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { describePipeline, loadAgentConfig } from '../config';
import { createSpeechProviders } from '../translation/providers';
import { OUTPUT_SAMPLE_RATE } from '../translation/room-translator';
import { translateFile } from './file-translation';
import { encodeWav, parseWav } from './wav';

const USAGE = 'usage: npm run -s translate:file -- --from en --to es --in speech.wav [--out translated.wav]';

function fail(message: string, code = 1): never {
  process.stderr.write(`translate:file: ${message}\n`);
  process.exit(code);
}

async function main(): Promise<void> {
  initializeLogger({ pretty: false, level: 'warn' });
  let args;
  try {
    args = parseArgs({
      options: { from: { type: 'string' }, to: { type: 'string' }, in: { type: 'string' }, out: { type: 'string' } },
      strict: true,
    }).values;
  } catch (error) {
    fail(`${(error as Error).message}\n${USAGE}`, 2);
  }
  if (!args.from || !args.to || !args.in) fail(USAGE, 2);
  const loaded = loadAgentConfig(process.env);
  if (!loaded.ok) fail(loaded.problem);
  const providers = createSpeechProviders(loaded.config.pipeline, OUTPUT_SAMPLE_RATE, (stage, error) =>
    process.stderr.write(`translate:file: ${stage} error: ${String((error as Error)?.message ?? error)}\n`),
  );
  if (!providers.supports(args.from, args.to)) {
    const why = providers.whyNot?.(args.from, args.to);
    fail(`the pipeline (${describePipeline(loaded.config.pipeline)}) cannot translate ${args.from}>${args.to}${why ? `: ${why}` : ''}`);
  }
  let audio;
  try {
    audio = parseWav(readFileSync(args.in));
  } catch (error) {
    fail(`${args.in}: ${(error as Error).message}`);
  }
  const detail = await translateFile({ from: args.from, to: args.to, audio, providers, sampleRate: OUTPUT_SAMPLE_RATE });
  await providers.close?.();
  if (args.out) writeFileSync(args.out, encodeWav(detail.audio, detail.sampleRate));
  process.stdout.write(`${JSON.stringify(detail.result)}\n`);
}

main()
  .catch((error: unknown) => fail(String((error as Error)?.message ?? error)))
  .finally(() => void dispose());
