// The bench's load: requests as autocannon sends them, each side measured in alternating rounds (with
// the CPU its process used), and a row's load run under the API's CPU profiler.
import autocannon from 'autocannon';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { formatProfileSummary, summarizeProfile } from './profile-summary.mjs';
import { cpuSecondsOf } from './processes.mjs';
import { CONNECTIONS, DURATION, ROUNDS, WARMUP } from './settings.mjs';

export function requestOptions(spec, apiKey) {
  const headers = { ...(spec.headers ?? {}) };
  if (spec.auth !== false && apiKey) headers.authorization = `Bearer ${apiKey}`;
  let body = spec.body;
  if (body !== undefined && typeof body !== 'string') {
    body = JSON.stringify(body);
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
  }
  return { method: (spec.method ?? 'GET').toUpperCase(), path: spec.path, headers, body, connections: spec.connections };
}

export function makeFetchJson(baseUrl, apiKey) {
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

export function target(baseUrl, options) {
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
export async function measureSides(sides) {
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
export async function profileRow(api, profileDir, spec, name) {
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
