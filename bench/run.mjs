// `npm run bench`: load-tests the built API against a bare NestJS + pg baseline and prints a table.
// A benchmark, not a test: a missed target is reported in the table, the exit code stays 0 (1 only when the
// harness itself fails). See docs/performance.md.
//
// Env: BENCH_DURATION   seconds measured per server and scenario (default 10)
//      BENCH_WARMUP     seconds of discarded warm-up per server and scenario (default 2)
//      BENCH_ROUNDS     alternating API/baseline rounds the duration is split into (default 2)
//      BENCH_CONNECTIONS  autocannon connections (default 50)
//      BENCH_SKIP_BUILD=1  use the existing dist/ instead of running `npm run build`
//      BENCH_ONLY       run only the scenarios whose name contains this, or one of these comma-separated parts ('hostile' for the hostile-body and
//                       webhook rows, 'webhooks' for the webhook rows alone, 'webhook-latency' for the customer webhook latency
//                       row at 1,000 events/s alone (after an unmeasured run of 200 rooms in the same harness process, as before it in every run), 'translator' or 'transcripts' for those rows alone)
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
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { DEFAULT_DATABASE_URL, DEFAULT_REDIS_URL, deleteRedisKeys, ensurePostgres, ensureRedis } from '../scripts/services.mjs';
import { formatAttackRow, measureAttack } from './attack.mjs';
import { formatProfileSummary, summarizeProfile } from './profile-summary.mjs';
import { SERVER_NODE_FLAGS } from '../scripts/server-node-flags.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST = path.join(ROOT, 'dist/apps/api/apps/api/src');
const DURATION = positive('BENCH_DURATION', 10);
const WARMUP = positive('BENCH_WARMUP', 2, true);
const CONNECTIONS = positive('BENCH_CONNECTIONS', 50);
const ROUNDS = Math.round(positive('BENCH_ROUNDS', 2));
const POOL_SIZE = String(positive('DATABASE_POOL_SIZE', 20));
/** The load under which issue 14 sets the delivery latency target (BENCH_LATENCY_RATE measures the row at another). */
const TARGET_WEBHOOK_RATE = 1000;
const WEBHOOK_RATE = positive('BENCH_LATENCY_RATE', TARGET_WEBHOOK_RATE);
/** Rooms of the unmeasured run that warms the processes and the harness before the latency row: as many as it measures. */
const WEBHOOK_WARMUP_ROOMS = 200;
const STAGE_NAMES = {
  sentToStored: 'first join sent → stored (answered 2xx)',
  storedToApplied: 'stored → applied (the transaction starting the room began)',
  appliedToWritten: 'applied → outbox row written (room.started and its deliveries, last in that transaction)',
  writtenToReceived: 'outbox row written → received by the endpoint (commit, dispatch, POST)',
  writtenToDelivered: 'outbox row written → 2xx recorded in the database',
};
/** BENCH_COMPARE's target: every request row keeps this share of the compared build's req/s. */
const COMPARE_MIN_RATIO = 0.95;
const DEFAULT_BASELINE = { method: 'GET', path: '/baseline/users/me' };

function positive(name, fallback, zeroOk = false) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || (!zeroOk && value === 0)) {
    throw new Error(`${name} must be a ${zeroOk ? 'non-negative' : 'positive'} number, got "${raw}"`);
  }
  return value;
}

const log = (message) => process.stderr.write(`bench: ${message}\n`);

// ---------------------------------------------------------------------------------------------- processes

/** Runs a command to completion; rejects with its output when it fails. */
function run(command, args, env = process.env, cwd = ROOT) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(stdout);
      else {
        const output = `${stdout}${stderr}`.trimEnd();
        const tail = output.length > 4000 ? `…${output.slice(-4000)}` : output;
        reject(new Error(`${[command, ...args].join(' ')} exited with ${code}\n${tail}`));
      }
    });
  });
}

const children = new Set();

/** Starts a long-running child, keeping the tail of its output for error messages. */
function startChild(name, args, env) {
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk) => {
    output = (output + chunk).slice(-8000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  child.exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve(signal ?? code)));
  child.output = () => output;
  child.label = name;
  children.add(child);
  child.exited.then(() => children.delete(child));
  return child;
}

async function stopChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await child.exited;
  clearTimeout(timer);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function waitUntilLive(child, url, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  child.exited.then(() => (exited = true));
  while (Date.now() < deadline) {
    if (exited) throw new Error(`${child.label} exited before answering ${url}:\n${child.output()}`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${child.label} did not answer ${url} within ${timeoutMs / 1000}s:\n${child.output()}`);
}

// ---------------------------------------------------------------------------------------------- requests

function requestOptions(spec, apiKey) {
  const headers = { ...(spec.headers ?? {}) };
  if (spec.auth !== false && apiKey) headers.authorization = `Bearer ${apiKey}`;
  let body = spec.body;
  if (body !== undefined && typeof body !== 'string') {
    body = JSON.stringify(body);
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
  }
  return { method: (spec.method ?? 'GET').toUpperCase(), path: spec.path, headers, body, connections: spec.connections };
}

function makeFetchJson(baseUrl, apiKey) {
  return async (requestPath, { method = 'GET', headers = {}, body, auth = true, expect } = {}) => {
    const options = requestOptions({ method, path: requestPath, headers, body, auth }, apiKey);
    const response = await fetch(new URL(options.path, baseUrl), {
      method: options.method,
      headers: options.headers,
      body: options.body,
    });
    const text = await response.text();
    let parsed = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: keep the text
    }
    if (expect !== undefined && response.status !== expect) {
      throw new Error(`${options.method} ${requestPath} answered ${response.status} (expected ${expect}): ${text.slice(0, 500)}`);
    }
    return { status: response.status, headers: response.headers, body: parsed };
  };
}

function autocannonRun(target, seconds) {
  const { connections, ...request } = target;
  return autocannon({ ...request, connections: connections ?? CONNECTIONS, duration: seconds });
}

function target(baseUrl, options) {
  return {
    url: new URL(options.path, baseUrl).toString(),
    method: options.method,
    headers: options.headers,
    body: options.body,
    connections: options.connections,
  };
}

/**
 * Measures each side (the API and the baseline; with BENCH_COMPARE also the API of the other build) in ROUNDS
 * alternating runs of DURATION/ROUNDS seconds each (after one discarded warm-up run per side), so that drift in the
 * machine's load hits every side alike. req/s is requests over time summed over the rounds; p50/p99 are the
 * request-weighted means of the rounds' percentiles.
 */
async function measureSides(sides) {
  const seconds = DURATION / ROUNDS;
  const names = Object.keys(sides);
  if (WARMUP > 0) for (const name of names) await autocannonRun(sides[name].target, WARMUP);
  const rounds = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    // rotate which side goes first and reverse every other round, so no side always follows another
    const rotated = names.map((_, i) => names[(i + round) % names.length]);
    const order = round % 2 === 0 ? rotated : rotated.reverse();
    for (const name of order) {
      const cpuBefore = cpuSecondsOf(sides[name].pid);
      const result = await autocannonRun(sides[name].target, seconds);
      const cpu = cpuBefore === null ? null : cpuSecondsOf(sides[name].pid) - cpuBefore;
      rounds[name].push({ result, cpu, expect: sides[name].expect });
    }
  }
  return Object.fromEntries(names.map((name) => [name, summarize(rounds[name])]));
}

const CLOCK_TICKS = 100; // USER_HZ on Linux
/** CPU seconds (user + system) a process has used so far, from /proc; null where there is none. */
function cpuSecondsOf(pid) {
  if (pid === undefined) return null;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS; // utime, stime (fields 14 and 15)
  } catch {
    return null;
  }
}

function summarize(rounds) {
  let total = 0;
  let seconds = 0;
  let p50 = 0;
  let p99 = 0;
  let errors = 0;
  let cpu = 0;
  const statusCodes = {};
  for (const { result, expect, cpu: roundCpu } of rounds) {
    cpu = cpu === null || roundCpu === null || roundCpu === undefined ? null : cpu + roundCpu;
    const count = result.requests.total;
    total += count;
    seconds += result.duration;
    p50 += result.latency.p50 * count;
    p99 += result.latency.p99 * count;
    errors += result.errors + result.timeouts;
    for (const [code, { count: n }] of Object.entries(result.statusCodeStats ?? {})) {
      statusCodes[code] = (statusCodes[code] ?? 0) + n;
      if (Number(code) !== expect) errors += n;
    }
  }
  const cpuUsPerRequest = cpu === null ? undefined : (cpu * 1e6) / (total || 1);
  return { rps: total / seconds, p50: p50 / (total || 1), p99: p99 / (total || 1), total, errors, statusCodes, cpuUsPerRequest };
}

/** Runs the row's load on the API with its CPU profiler on (bench/cpu-profile-preload.cjs) and summarizes the profile. */
async function profileRow(api, profileDir, spec, name) {
  const until = async (ready, what) => {
    for (let i = 0; i < 200; i++) {
      if (ready()) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`the API gave no ${what} within 10 s`);
  };
  const profilesBefore = new Set(readdirSync(profileDir));
  // the preload writes `<pid>.started` (the number of the profile it started) once the profiler runs
  const marker = path.join(profileDir, `${api.pid}.started`);
  const started = () => (existsSync(marker) ? readFileSync(marker, 'utf8') : null);
  if (WARMUP > 0) await autocannonRun(spec.target, WARMUP);
  const startedBefore = started();
  api.kill('SIGWINCH');
  await until(() => started() !== null && started() !== startedBefore, 'profiler start');
  const result = await autocannonRun(spec.target, DURATION);
  api.kill('SIGWINCH');
  let file;
  await until(
    () => (file = readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile') && !profilesBefore.has(f))) !== undefined,
    'profile',
  );
  const summary = summarizeProfile(JSON.parse(readFileSync(path.join(profileDir, file), 'utf8')), result.requests.total);
  return formatProfileSummary(`${name} (${(result.requests.total / result.duration).toFixed(0)} req/s while profiled)`, summary);
}

// ---------------------------------------------------------------------------------------------- table

function describeTarget(target = {}) {
  const parts = [];
  if (target.ratio !== undefined) parts.push(`ratio ≥ ${target.ratio}`);
  if (target.maxP99Ms !== undefined) parts.push(`p99 ≤ ${target.maxP99Ms} ms`);
  if (target.maxP50Ratio !== undefined) parts.push(`p50 ≤ ${target.maxP50Ratio} × baseline p50`);
  return parts.join(', ') || '—';
}

function verdict(row) {
  if (row.error) return 'error';
  const { target = {} } = row.scenario;
  const reasons = [];
  if (row.api.errors > 0 || row.baseline.errors > 0) reasons.push('errors');
  if (target.ratio !== undefined && row.ratio < target.ratio) reasons.push('ratio');
  if (target.maxP99Ms !== undefined && row.api.p99 > target.maxP99Ms) reasons.push('p99');
  if (target.maxP50Ratio !== undefined && row.api.p50 > target.maxP50Ratio * row.baseline.p50) reasons.push('p50');
  return reasons.length ? `FAIL (${reasons.join(', ')})` : 'pass';
}

/** A markdown table with aligned columns; columns 1 to `lastNumeric` are right-aligned numbers. */
function markdownTable(header, lines, lastNumeric) {
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((line) => line[i].length)));
  const numeric = (i) => i >= 1 && i <= lastNumeric;
  const cell = (text, i) => (numeric(i) ? text.padStart(widths[i]) : text.padEnd(widths[i]));
  const render = (line) => `| ${line.map(cell).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (numeric(i) ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`;
  return [render(header), rule, ...lines.map(render)].join('\n');
}

function formatTable(rows) {
  const fmt = (value, digits = 0) => (value === undefined || Number.isNaN(value) ? '—' : value.toFixed(digits));
  const header = ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'baseline req/s', 'baseline p50', 'ratio', 'target', 'pass/fail'];
  const lines = rows.map((row) => [
    row.scenario.name,
    fmt(row.api?.rps),
    fmt(row.api?.p50),
    fmt(row.api?.p99),
    fmt(row.baseline?.rps),
    fmt(row.baseline?.p50),
    fmt(row.ratio, 2),
    describeTarget(row.scenario.target),
    verdict(row),
  ]);
  return markdownTable(header, lines, 6);
}

/** BENCH_COMPARE's table: each request row for the other build and this one, measured in the same rounds. */
function formatCompareTable(rows, ref) {
  const fmt = (value, digits = 0) => (value === undefined || Number.isNaN(value) ? '—' : value.toFixed(digits));
  const header = [
    'scenario',
    `${ref} req/s`,
    'new req/s',
    'new ÷ old',
    `${ref} p50 / p99 ms`,
    'new p50 / p99 ms',
    `API CPU µs/req ${ref} / new`,
    'bare req/s',
    'new ÷ bare',
    'target',
    'pass/fail',
  ];
  const lines = rows.map((row) => {
    const vsOld = row.old ? row.api.rps / row.old.rps : NaN;
    const target = [`new ÷ old ≥ ${COMPARE_MIN_RATIO}`, describeTarget(row.scenario.target)].filter((t) => t !== '—').join(', ');
    let verdictText = verdict(row);
    if (!row.error && (row.old?.errors ?? 0) > 0) verdictText = 'FAIL (errors)';
    if (!row.error && vsOld < COMPARE_MIN_RATIO) verdictText = verdictText === 'pass' ? 'FAIL (new ÷ old)' : `${verdictText}, new ÷ old`;
    return [
      row.scenario.name,
      fmt(row.old?.rps),
      fmt(row.api?.rps),
      fmt(vsOld, 2),
      `${fmt(row.old?.p50)} / ${fmt(row.old?.p99)}`,
      `${fmt(row.api?.p50)} / ${fmt(row.api?.p99)}`,
      `${fmt(row.old?.cpuUsPerRequest)} / ${fmt(row.api?.cpuUsPerRequest)}`,
      fmt(row.baseline?.rps),
      fmt(row.ratio, 2),
      target,
      verdictText,
    ];
  });
  return markdownTable(header, lines, 8);
}

/**
 * The production build of another git ref, in a worktree under .data/bench-compare/ (kept and reused):
 * checked out, installed with its own lock file and built on first use.
 */
async function prepareComparedBuild(ref) {
  const sha = (await run('git', ['rev-parse', '--verify', `${ref}^{commit}`])).trim();
  const dir = path.join(ROOT, '.data/bench-compare', sha.slice(0, 12));
  const dist = path.join(dir, 'dist/apps/api/apps/api/src');
  if (!existsSync(path.join(dist, 'main.js'))) {
    if (!existsSync(path.join(dir, 'package.json'))) {
      log(`BENCH_COMPARE: git worktree add ${path.relative(ROOT, dir)} ${sha.slice(0, 12)}`);
      await run('git', ['worktree', 'add', '--force', '--detach', dir, sha]);
    }
    log(`BENCH_COMPARE: npm ci && npm run build in ${path.relative(ROOT, dir)}`);
    await run('npm', ['ci', '--no-audit', '--no-fund'], process.env, dir);
    await run('npm', ['run', 'build'], process.env, dir);
  }
  return { ref, sha, dist };
}

// ---------------------------------------------------------------------------------------------- main

/** The translator's tables (bench/translator.ts): parallel speaker streams against the worker's capacity, WER and latency per clip. */
async function translatorRow() {
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

/** The transcript rows (bench/transcripts.ts): segments stored per second with 200 rooms reporting at once, WebVTT of a 2-hour room. */
async function transcriptRows() {
  log('measuring transcripts: 200 rooms reporting segments at once, then WebVTT of a 2-hour room');
  const out = (await run(process.execPath, ['-r', '@swc-node/register', 'bench/transcripts.ts'])).trim().split('\n');
  const r = JSON.parse(out.pop());
  process.stdout.write(`${out.join('\n')}\n`);
  return r.pass ? 0 : 1;
}

/** The webhook throughput rows, and the billing row of the reordered run. */
function formatWebhookTables(webhooks, withEndpoints, disordered) {
  const webhookRow = (name, w) => {
    const pass = w.appliedPerSecond >= 1000 && w.lost === 0 && w.doubled === 0 && w.rejected === 0;
    return `| ${name} | ${w.events} | ${w.acceptedPerSecond} | ${w.appliedPerSecond} | ${w.lost} | ${w.doubled} | ≥ 1000/s, 0 lost, 0 doubled | ${pass ? 'pass' : 'FAIL'} |\n`;
  };
  const billing = disordered.billing;
  const billedAsInOrder =
    billing.minutes === billing.inOrderMinutes && billing.cents === billing.inOrderCents && billing.ledgerCents === billing.cents;
  return (
    `| webhooks | events | accepted/s | applied end to end/s | lost | doubled | target | pass/fail |\n` +
    `|---|--:|--:|--:|--:|--:|---|---|\n` +
    webhookRow('signed LiveKit webhooks', webhooks) +
    webhookRow('signed LiveKit webhooks, 10 customer endpoints (1 answering after 5 s)', withEndpoints) +
    webhookRow('signed LiveKit webhooks, 10 % reordered and 10 % sent twice, rooms finished', disordered) +
    '\n' +
    `| events applied, 10 % reordered and 10 % sent twice | events/s applied | minutes billed | in-order minutes | cents billed | in-order cents | ledger cents | target | pass/fail |\n` +
    `|---|--:|--:|--:|--:|--:|--:|---|---|\n` +
    `| ${disordered.events} signed LiveKit events | ${disordered.appliedPerSecond} | ${billing.minutes} | ${billing.inOrderMinutes} | ` +
    `${billing.cents} | ${billing.inOrderCents} | ${billing.ledgerCents} | equal to the in-order run, ≥ 1000/s | ` +
    `${billedAsInOrder && disordered.appliedPerSecond >= 1000 ? 'pass' : 'FAIL'} |\n\n`
  );
}

/** The customer webhook latency row of one run, and the rows splitting it into stages (per room, the slowest fast endpoint). */
function formatLatencyRows(name, w, judged = true) {
  const latency = w.latency;
  const pass = latency && latency.missing === 0 && latency.p99 !== null && latency.p99 <= 1000;
  const verdict = judged ? `p99 ≤ 1000 ms | ${pass ? 'pass' : 'FAIL'}` : '— | —';
  const samples = latency?.samples ?? 0;
  return (
    `| LiveKit event sent → room.started received by a fast endpoint, ${name} | ` +
    `${samples} | ${latency?.p50 ?? '—'} | ${latency?.p95 ?? '—'} | ${latency?.p99 ?? '—'} | ${latency?.missing ?? '—'} | ${verdict} |\n` +
    `| of which: outbox row written → delivered, recorded in the database (all nine endpoints) | ${samples} | ` +
    `${latency?.outboxP50 ?? '—'} | — | ${latency?.outboxP99 ?? '—'} | — | — | — |\n` +
    Object.entries(latency?.stages ?? {})
      .map(
        ([stage, { p50, p95, p99 }]) =>
          `| stage (per room, slowest fast endpoint): ${STAGE_NAMES[stage] ?? stage} | ${samples} | ${p50} | ${p95 ?? '—'} | ${p99} | — | — | — |\n`,
      )
      .join('')
  );
}

async function main() {
  if (process.env.BENCH_ONLY && 'translator'.includes(process.env.BENCH_ONLY)) return translatorRow();
  if (process.env.BENCH_ONLY && 'transcripts'.includes(process.env.BENCH_ONLY)) return transcriptRows();
  const scenarioModule = process.env.BENCH_SCENARIOS
    ? pathToFileURL(path.resolve(process.env.BENCH_SCENARIOS)).href
    : new URL('./scenarios.mjs', import.meta.url).href;
  const { SCENARIOS } = await import(scenarioModule);
  const compareRef = process.env.BENCH_COMPARE || null;
  const latencyOnly = process.env.BENCH_ONLY === 'webhook-latency';
  const webhooksOnly = process.env.BENCH_ONLY === 'webhooks' || latencyOnly;
  const wanted = (process.env.BENCH_ONLY ?? '').split(',').filter(Boolean);
  const scenarios = SCENARIOS.filter((s) => wanted.length === 0 || wanted.some((part) => s.name.includes(part)));
  // BENCH_COMPARE measures the request rows only; the hostile-body and webhook rows keep their own runs.
  const profiling = process.env.BENCH_PROFILE === '1';
  const runAttack =
    !compareRef && !profiling && !webhooksOnly && (!process.env.BENCH_ONLY || 'hostile bodies'.includes(process.env.BENCH_ONLY));
  if (scenarios.length === 0 && !runAttack && !webhooksOnly) throw new Error(`No scenario matches BENCH_ONLY="${process.env.BENCH_ONLY}"`);

  const serverUrl = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
  const redisUrl = process.env.REDIS_URL || DEFAULT_REDIS_URL;
  const stamp = Date.now();
  const databaseName = `trk_bench_${stamp}`;
  const databaseUrl = Object.assign(new URL(serverUrl), { pathname: `/${databaseName}` }).toString();
  const adminUrl = Object.assign(new URL(serverUrl), { pathname: '/postgres' }).toString();
  const queuePrefix = `trk_bench_${stamp}`;

  const cleanups = [];
  const cleanup = async () => {
    for (const child of [...children]) await stopChild(child).catch(() => undefined);
    while (cleanups.length)
      await cleanups
        .pop()()
        .catch((error) => log(`cleanup: ${error.message}`));
  };
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => {
      log(`${signal}: stopping`);
      void cleanup().finally(() => process.exit(130));
    });
  }

  try {
    const postgres = await ensurePostgres(serverUrl, log);
    cleanups.push(() => postgres.stop());
    const redis = await ensureRedis(redisUrl, log);
    cleanups.push(() => redis.stop());

    if (process.env.BENCH_SKIP_BUILD === '1') log('BENCH_SKIP_BUILD=1: using the existing dist/');
    else {
      log('npm run build');
      await run('npm', ['run', 'build']);
    }
    const comparedBuild = compareRef ? await prepareComparedBuild(compareRef) : null;

    log(`creating database ${databaseName}`);
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${databaseName}"`);
    await admin.end();
    cleanups.push(async () => {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS "${databaseName}" WITH (FORCE)`);
        log(`dropped database ${databaseName}`);
      } finally {
        await client.end();
      }
    });
    cleanups.push(() => deleteRedisKeys(redisUrl, `${queuePrefix}:*`));

    const env = {
      ...process.env,
      NODE_ENV: 'production',
      DATABASE_URL: databaseUrl,
      DATABASE_POOL_SIZE: POOL_SIZE,
      REDIS_URL: redisUrl,
      QUEUE_PREFIX: queuePrefix,
      INVITE_SIGNING_SECRET: randomBytes(32).toString('hex'),
      API_KEY_PEPPER: randomBytes(32).toString('hex'),
      // Production refuses LiveKit's dev pair; the double accepts whatever pair it is given.
      LIVEKIT_API_KEY: 'APIbench',
      LIVEKIT_API_SECRET: randomBytes(32).toString('hex'),
      // The limiter runs on every request (its Redis call is part of what is measured), with budgets
      // far above what one bench key and address send, so no row is refused.
      RATE_LIMIT_PER_CREDENTIAL: '1000000000',
      RATE_LIMIT_PER_ADDRESS: '1000000000',
      LOG_LEVEL: 'warn',
      // The customer webhook endpoints of the webhook rows are receivers on loopback.
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    };
    // No LiveKit server can be reached here: the API talks to the protocol double of the tests.
    const livekit = startChild('LiveKit double', ['-r', '@swc-node/register', 'bench/livekit-double-server.ts'], env);
    env.LIVEKIT_API_URL = await new Promise((resolve, reject) => {
      livekit.stdout.on('data', (chunk) => {
        const match = /LIVEKIT_DOUBLE_URL=(\S+)/.exec(String(chunk));
        if (match) resolve(match[1]);
      });
      livekit.exited.then(() => reject(new Error(`LiveKit double exited:\n${livekit.output()}`)));
    });
    await run(process.execPath, [path.join(DIST, 'database/migrate.js')], env);
    const created = await run(
      process.execPath,
      [
        path.join(DIST, 'cli/main.js'),
        'org:create',
        '--name',
        'Bench Org',
        '--email',
        'bench@example.com',
        '--first-name',
        'Bench',
        '--last-name',
        'User',
      ],
      env,
    );
    const { organization_id: organizationId, user_id: userId, api_key: apiKey } = JSON.parse(created.trim().split('\n').pop());
    if (!apiKey || !userId) throw new Error(`org:create printed no api_key/user_id: ${created}`);
    await run(process.execPath, [path.join(DIST, 'cli/main.js'), 'credit:grant', '--org', organizationId, '--cents', '100000000'], env);

    const apiPort = await freePort();
    // Deployed as in `npm run dev`: the API answers requests, a worker process applies queued events,
    // both with the V8 flags they are deployed with (the compared build's API too).
    const nodeArgs = (process.env.BENCH_API_NODE_ARGS ?? '').split(' ').filter(Boolean);
    const profileDir = profiling ? path.join(ROOT, '.data/bench-profiles', String(stamp)) : null;
    if (profileDir) mkdirSync(profileDir, { recursive: true });
    const api = startChild(
      'API',
      [
        ...(profileDir ? ['-r', path.join(ROOT, 'bench/cpu-profile-preload.cjs')] : []),
        ...SERVER_NODE_FLAGS,
        ...nodeArgs,
        path.join(DIST, 'main.js'),
      ],
      { ...env, PORT: String(apiPort), RUN_QUEUE_WORKERS: 'false', ...(profileDir ? { BENCH_PROFILE_DIR: profileDir } : {}) },
    );
    const worker = startChild('worker', [...SERVER_NODE_FLAGS, ...nodeArgs, path.join(DIST, 'worker.js')], env);
    const baselinePort = await freePort();
    const baseline = startChild('baseline', [path.join(ROOT, 'bench/baseline-server.mjs')], {
      ...env,
      PORT: String(baselinePort),
      BENCH_USER_ID: userId,
    });
    const baseUrl = `http://127.0.0.1:${apiPort}`;
    const baselineUrl = `http://127.0.0.1:${baselinePort}`;
    await Promise.all([waitUntilLive(api, `${baseUrl}/health/live`), waitUntilLive(baseline, `${baselineUrl}/health/live`)]);
    // The compared build serves the same database, organization and key: its migrations are a prefix of
    // this build's, so it reads the very rows the scenarios create.
    let compared = null;
    if (comparedBuild) {
      const oldPort = await freePort();
      const oldApi = startChild(
        `API ${comparedBuild.ref}`,
        [
          ...(profileDir ? ['-r', path.join(ROOT, 'bench/cpu-profile-preload.cjs')] : []),
          ...SERVER_NODE_FLAGS,
          ...nodeArgs,
          path.join(comparedBuild.dist, 'main.js'),
        ],
        { ...env, PORT: String(oldPort), RUN_QUEUE_WORKERS: 'false', ...(profileDir ? { BENCH_PROFILE_DIR: profileDir } : {}) },
      );
      compared = { ...comparedBuild, child: oldApi, baseUrl: `http://127.0.0.1:${oldPort}` };
      await waitUntilLive(oldApi, `${compared.baseUrl}/health/live`);
      log(`API of ${comparedBuild.ref} (${comparedBuild.sha.slice(0, 12)}) on ${compared.baseUrl}`);
    }
    log(
      `API on ${baseUrl}, baseline on ${baselineUrl}; ${DURATION}s each in ${ROUNDS} rounds after ${WARMUP}s warm-up, ${CONNECTIONS} connections`,
    );

    const dbPool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    cleanups.push(() => dbPool.end());
    const ctx = {
      baseUrl,
      baselineUrl,
      apiKey,
      databaseUrl,
      organizationId,
      userId,
      fetchJson: makeFetchJson(baseUrl, apiKey),
      query: async (sql, params) => (await dbPool.query(sql, params)).rows,
    };

    const rows = [];
    for (const scenario of scenarios) {
      const row = { scenario };
      rows.push(row);
      try {
        const overrides = scenario.setup ? ((await scenario.setup(ctx)) ?? {}) : {};
        const spec = {
          ...scenario,
          headers: typeof scenario.headers === 'function' ? await scenario.headers(ctx) : scenario.headers,
          ...overrides,
        };
        const options = requestOptions(spec, apiKey);
        const expectStatus = spec.expect ?? 200;
        await makeFetchJson(baseUrl, apiKey)(options.path, { ...options, auth: false, expect: expectStatus });

        const baselineSpec = requestOptions({ ...DEFAULT_BASELINE, ...(scenario.baseline ?? {}), auth: false }, null);
        await makeFetchJson(baselineUrl, null)(baselineSpec.path, { ...baselineSpec, auth: false, expect: 200 });
        log(`measuring ${scenario.name} against baseline ${baselineSpec.method} ${baselineSpec.path}`);
        if (profileDir) {
          log(`profiling ${scenario.name}`);
          row.profile = await profileRow(api, profileDir, { target: target(baseUrl, options) }, scenario.name);
          if (compared) {
            const old = await profileRow(
              compared.child,
              profileDir,
              { target: target(compared.baseUrl, options) },
              `${scenario.name}, ${compared.ref}`,
            );
            row.profile += old;
          }
          continue;
        }
        const sides = {
          baseline: { target: target(baselineUrl, baselineSpec), expect: 200 },
          api: { target: target(baseUrl, options), expect: expectStatus, pid: api.pid },
        };
        if (compared) {
          await makeFetchJson(compared.baseUrl, apiKey)(options.path, { ...options, auth: false, expect: expectStatus });
          sides.old = { target: target(compared.baseUrl, options), expect: expectStatus, pid: compared.child.pid };
        }
        Object.assign(row, await measureSides(sides));
        row.ratio = row.api.rps / row.baseline.rps;
        if (row.api.errors > 0) log(`${scenario.name}: ${row.api.errors} errors, status codes ${JSON.stringify(row.api.statusCodes)}`);
      } catch (error) {
        row.error = error;
        log(`${scenario.name} failed: ${error.message}`);
      }
      for (const child of [api, worker, baseline, ...(compared ? [compared.child] : [])]) {
        if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${child.label} died:\n${child.output()}`);
      }
    }

    if (profileDir) {
      process.stdout.write(`\nCPU profiles of the API (${DURATION}s of load per row, ${CONNECTIONS} connections), in ${profileDir}\n\n`);
      for (const row of rows) process.stdout.write(row.profile ?? `#### ${row.scenario.name}: ${row.error?.message}\n\n`);
      return rows.some((row) => row.error) ? 1 : 0;
    }
    if (compared) {
      const cpus = os.cpus();
      process.stdout.write(
        `\n${new Date().toISOString()}  node ${process.version}  ${cpus.length} × ${cpus[0]?.model ?? 'cpu'}  ` +
          `new = this checkout, old = ${compared.ref} (${compared.sha.slice(0, 12)}); ` +
          `${DURATION}s per side in ${ROUNDS} rotating rounds (warm-up ${WARMUP}s), ${CONNECTIONS} connections, pool ${POOL_SIZE}\n\n` +
          `${formatCompareTable(rows, compared.ref)}\n\n`,
      );
      return rows.some((row) => row.error) ? 1 : 0;
    }

    let attack = null;
    if (runAttack) {
      log('measuring users/me with and without hostile bodies');
      attack = await measureAttack(baseUrl, apiKey, { seconds: DURATION });
    }

    const measureWebhooks = async (extraEnv) =>
      JSON.parse(
        (
          await run(process.execPath, ['-r', '@swc-node/register', 'bench/webhooks.ts', baseUrl, apiKey, databaseUrl, organizationId], {
            ...env,
            ...extraEnv,
          })
        )
          .trim()
          .split('\n')
          .pop(),
      );
    let webhooks = null;
    let withEndpoints = null;
    if (!latencyOnly) {
      log('measuring LiveKit webhooks end to end');
      webhooks = await measureWebhooks({});
      log('measuring LiveKit webhooks end to end with 10 customer webhook endpoints, one answering after 5 s');
      withEndpoints = await measureWebhooks({ BENCH_CUSTOMER_ENDPOINTS: '10', BENCH_SLOW_ENDPOINT_MS: '5000' });
    }
    const latencyLoad = {
      BENCH_CUSTOMER_ENDPOINTS: '10',
      BENCH_SLOW_ENDPOINT_MS: '5000',
      BENCH_WEBHOOK_RATE: String(WEBHOOK_RATE),
    };
    // Like every other row it is measured warm: first an unmeasured run of the same load and size, in
    // the same harness process, so the burst the row times finds neither the API's and worker's code
    // for a burst that size nor the harness's own sender and receivers still being compiled (with a
    // smaller run in a process of its own before it, compiling took 23 % of the machine during the
    // timed burst; 10 % this way: docs/performance.md, 2026-11-27 night).
    log(
      `measuring customer webhook latency with ${WEBHOOK_RATE} LiveKit events/s offered, after an unmeasured run of ${WEBHOOK_WARMUP_ROOMS} rooms`,
    );
    const atTargetLoad = await measureWebhooks({ ...latencyLoad, BENCH_WEBHOOK_WARMUP_ROOMS: String(WEBHOOK_WARMUP_ROOMS) });
    // Last: the rows before it run on the same database as in earlier builds (the latency row adds 400 rooms).
    let disordered = null;
    if (!latencyOnly) {
      log('measuring LiveKit webhooks end to end, 10 % of them reordered and 10 % sent twice, every room finished');
      disordered = await measureWebhooks({ BENCH_WEBHOOK_DISORDER: '0.1' });
    }
    const cpus = os.cpus();
    process.stdout.write(
      `\n${new Date().toISOString()}  node ${process.version}  ${cpus.length} × ${cpus[0]?.model ?? 'cpu'}  ` +
        `${DURATION}s per side in ${ROUNDS} alternating rounds (warm-up ${WARMUP}s), ${CONNECTIONS} connections, pool ${POOL_SIZE}\n\n${formatTable(rows)}\n\n`,
    );
    if (disordered) process.stdout.write(formatWebhookTables(webhooks, withEndpoints, disordered));
    process.stdout.write(
      `| customer webhooks (9 fast endpoints, 1 answering after 5 s) | deliveries timed | p50 ms | p95 ms | p99 ms | missing | target | pass/fail |\n` +
        `|---|--:|--:|--:|--:|--:|---|---|\n` +
        formatLatencyRows(
          `${WEBHOOK_RATE} LiveKit events/s offered${WEBHOOK_RATE === TARGET_WEBHOOK_RATE ? " (the target's load)" : ''}`,
          atTargetLoad,
          WEBHOOK_RATE === TARGET_WEBHOOK_RATE,
        ) +
        (withEndpoints
          ? formatLatencyRows(
              `events sent as fast as the API answers (the throughput row above, ${withEndpoints.appliedPerSecond}/s)`,
              withEndpoints,
            )
          : '') +
        '\n',
    );
    if (attack) process.stdout.write(formatAttackRow(attack));
    if (!process.env.BENCH_ONLY) await translatorRow();
    const transcriptsFailed = !process.env.BENCH_ONLY && (await transcriptRows()) !== 0;
    return rows.some((row) => row.error) || transcriptsFailed ? 1 : 0;
  } finally {
    await cleanup();
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    log(`failed: ${error.stack ?? error.message}`);
    process.exit(1);
  },
);
