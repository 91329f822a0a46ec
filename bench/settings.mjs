// The settings of `npm run bench` (bench/run.mjs), each read and checked once, here.
//
// Env: BENCH_DURATION   seconds measured per server and scenario (default 10)
//      BENCH_WARMUP     seconds of discarded warm-up per server and scenario (default 2)
//      BENCH_ROUNDS     alternating API/baseline rounds the duration is split into (default 2)
//      BENCH_CONNECTIONS  autocannon connections (default 50)
//      BENCH_SKIP_BUILD=1  use the existing dist/ instead of running `npm run build`
//      BENCH_ONLY       run only the scenarios whose name contains this, or one of these comma-separated parts ('hostile' for the hostile-body and
//                       webhook rows, 'webhooks' for the webhook rows alone, 'webhook-latency' for the customer webhook latency
//                       row at 1,000 events/s alone (after an unmeasured run of 200 rooms in the same harness process, as before it in every run), 'streams' for the
//                       event stream rows alone, 'translator', 'transcripts' or 'reconcile' for those rows alone)
//      BENCH_STREAMS    event streams open during each webhook row (default none); the event stream rows open this many (default 100)
//      BENCH_STREAM_ORGANIZATIONS  organizations the first event stream rows spread their rooms and streams over (default 5)
//      BENCH_STREAM_RATE  LiveKit events/s offered in the paced event stream rows (default 1000)
//      BENCH_LATENCY_RATE  LiveKit events/s offered in the customer webhook latency row (default 1000, the target's load;
//                       another rate prints the row without a pass/fail: it shows how the latency follows the load)
//      BENCH_COMPARE    a git ref (e.g. 08bd919): its production build runs beside this one on the same database
//                       and each request row is measured for both builds and the baseline in alternating rounds,
//                       printing new ÷ old (the worktree is kept under .data/bench-compare/ and reused)
//      BENCH_PROFILE=1  instead of measuring, profile each request row's API CPU under the same load (V8's
//                       sampling profiler, started and stopped by signal) and print where the time goes per
//                       layer; the .cpuprofile files stay under .data/bench-profiles/
//      BENCH_SCENARIOS  another module exporting SCENARIOS (default bench/scenarios.mjs)
//      DATABASE_URL     server on which the bench database is created (its own database is not touched)
//      REDIS_URL, DATABASE_POOL_SIZE (API and baseline pool size, default 20)
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The production build the bench measures. */
export const DIST = path.join(ROOT, 'dist/apps/api/apps/api/src');

function positive(name, fallback, zeroOk = false) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || (!zeroOk && value === 0)) {
    throw new Error(`${name} must be a ${zeroOk ? 'non-negative' : 'positive'} number, got "${raw}"`);
  }
  return value;
}

export const DURATION = positive('BENCH_DURATION', 10);
export const WARMUP = positive('BENCH_WARMUP', 2, true);
export const CONNECTIONS = positive('BENCH_CONNECTIONS', 50);
export const ROUNDS = Math.round(positive('BENCH_ROUNDS', 2));
export const POOL_SIZE = String(positive('DATABASE_POOL_SIZE', 20));
/** The load under which issue 14 sets the delivery latency target (BENCH_LATENCY_RATE measures the row at another). */
export const TARGET_WEBHOOK_RATE = 1000;
export const WEBHOOK_RATE = positive('BENCH_LATENCY_RATE', TARGET_WEBHOOK_RATE);
/** Rooms of the unmeasured run that warms the processes and the harness before the latency row: as many as it measures. */
export const WEBHOOK_WARMUP_ROOMS = 200;
/** BENCH_COMPARE's target: every request row keeps this share of the compared build's req/s. */
export const COMPARE_MIN_RATIO = 0.95;
export const DEFAULT_BASELINE = { method: 'GET', path: '/baseline/users/me' };
/** The event stream rows: streams open, the organizations the spread rows use, LiveKit events/s offered in the paced ones. */
export const STREAMS = Math.round(positive('BENCH_STREAMS', 100, true)) || 100;
export const STREAM_ORGANIZATIONS = Math.round(positive('BENCH_STREAM_ORGANIZATIONS', 5));
export const STREAM_RATE = positive('BENCH_STREAM_RATE', TARGET_WEBHOOK_RATE);
/** The event stream rows' target: committed → received p99 at most this, every event on every stream once. */
export const STREAM_TARGET_P99_MS = 1000;
