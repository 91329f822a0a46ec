// The rows measured by a program of their own (`BENCH_ONLY=translator`, `transcripts`, `reconcile`): each is a
// TypeScript file under bench/ run in a child process, whose last line of output is its JSON summary.
import { log, run } from './processes.mjs';

/** The translator's tables (bench/translator.ts): parallel speaker streams against the worker's capacity, WER and latency per clip. */
export async function translatorRow() {
  log('measuring the translator (local pipeline): parallel speaker streams, then each clip, in real time');
  let out;
  try {
    out = (await run(process.execPath, ['-r', '@swc-node/register', 'bench/translator.ts'])).trim().split('\n');
  } catch (error) {
    log(`translator row skipped: ${error.message.split('\n').slice(0, 3).join(' ')}`);
    return 0;
  }
  const r = JSON.parse(out.pop());
  process.stdout.write(
    `${out.join('\n')}\ntarget: first audio p95 ≤ 1,500 ms at and beyond K; simultaneous word lag p95 ≤ 3,000 ms at 1 stream, ≤ 3,500 ms at K; a 10,000-entry glossary adds ≤ 5 ms p95 to an utterance's translation: ${r.pass ? 'pass' : 'FAIL'}\n\n`,
  );
  return 0;
}

/** Runs `bench/<script>`, prints its tables, and returns 1 when its summary says a target was missed. */
async function programRows(script, what) {
  log(what);
  const out = (await run(process.execPath, ['-r', '@swc-node/register', `bench/${script}`])).trim().split('\n');
  const r = JSON.parse(out.pop());
  process.stdout.write(`${out.join('\n')}\n`);
  return r.pass ? 0 : 1;
}

/** The transcript rows (bench/transcripts.ts): segments stored per second with 200 rooms reporting at once, WebVTT of a 2-hour room. */
export const transcriptRows = () =>
  programRows('transcripts.ts', 'measuring transcripts: 200 rooms reporting segments at once, then WebVTT of a 2-hour room');

/** The reconciliation rows (bench/reconcile.ts): one run of the reconciliation with LiveKit with 10,000 live rooms. */
export const reconcileRows = () =>
  programRows('reconcile.ts', 'measuring reconciliation with LiveKit: 10,000 live rooms, against the LiveKit double');
