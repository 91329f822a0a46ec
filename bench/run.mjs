// `npm run bench`: load-tests the built API against a bare NestJS + pg baseline and prints a table.
// A benchmark, not a test: a missed target is reported in the table, the exit code stays 0 (1 only when the
// harness itself fails). See docs/performance.md. Its settings (BENCH_ONLY, BENCH_COMPARE, …) are listed in
// bench/settings.mjs; what it starts is bench/deployment.mjs, how it loads bench/load.mjs, its tables bench/tables.mjs.
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { formatAttackRow, measureAttack } from './attack.mjs';
import { createOrganization, startDeployment } from './deployment.mjs';
import { makeFetchJson, measureSides, profileRow, requestOptions, target } from './load.mjs';
import { children, log, run, stopChild } from './processes.mjs';
import { reconcileRows, transcriptRows, translatorRow } from './own-process-rows.mjs';
import {
  CONNECTIONS,
  DEFAULT_BASELINE,
  DURATION,
  POOL_SIZE,
  ROUNDS,
  STREAM_ORGANIZATIONS,
  STREAM_RATE,
  STREAMS,
  TARGET_WEBHOOK_RATE,
  WARMUP,
  WEBHOOK_RATE,
  WEBHOOK_WARMUP_ROOMS,
} from './settings.mjs';
import { formatCompareTable, formatLatencyRows, formatStreamRows, formatTable, formatWebhookTables } from './tables.mjs';

/**
 * The event stream rows (BENCH_ONLY=streams): STREAMS streams open while the webhook rows' events commit through
 * the real path, spread over STREAM_ORGANIZATIONS organizations (made here), then all on one (the fan-out's worst
 * case: every event written to every stream), at STREAM_RATE LiveKit events/s offered and as fast as the API
 * answers. Each run starts with a small unmeasured one in the same harness processes. Returns 1 when a stream
 * lost, doubled or reordered an event (a latency miss shows as FAIL and leaves the exit code 0).
 */
async function streamRows(env, measureWebhooks) {
  const spread = [];
  for (let i = 2; i <= STREAM_ORGANIZATIONS; i++) {
    const { organization_id, api_key } = await createOrganization(env, `Bench Org ${i}`, `bench${i}`);
    spread.push({ organization_id, api_key });
  }
  const perOrganization = STREAMS / STREAM_ORGANIZATIONS;
  const runs = [
    [`${STREAMS} streams, ${STREAM_ORGANIZATIONS} organizations × ${perOrganization}`, { BENCH_ORGANIZATIONS: JSON.stringify(spread) }],
    [`${STREAMS} streams on one organization`, {}],
  ].flatMap(([name, extraEnv]) => [
    [`${name}, ${STREAM_RATE} LiveKit events/s offered`, { ...extraEnv, BENCH_WEBHOOK_RATE: String(STREAM_RATE) }],
    [`${name}, sent as fast as the API answers`, extraEnv],
  ]);
  const rows = [];
  for (const [name, extraEnv] of runs) {
    log(`measuring event streams: ${name}`);
    const result = await measureWebhooks({ ...extraEnv, BENCH_STREAMS: String(STREAMS), BENCH_WEBHOOK_WARMUP_ROOMS: '20' });
    rows.push({ name, result });
  }
  process.stdout.write(formatStreamRows(rows));
  const broken = rows.some(({ result: { streams: s } }) => !s || s.lost + s.doubled + s.foreign + s.outOfOrder > 0);
  return broken ? 1 : 0;
}

async function main() {
  if (process.env.BENCH_ONLY && 'translator'.includes(process.env.BENCH_ONLY)) return translatorRow();
  if (process.env.BENCH_ONLY && 'transcripts'.includes(process.env.BENCH_ONLY)) return transcriptRows();
  if (process.env.BENCH_ONLY === 'reconcile') return reconcileRows();
  const scenarioModule = process.env.BENCH_SCENARIOS
    ? pathToFileURL(path.resolve(process.env.BENCH_SCENARIOS)).href
    : new URL('./scenarios.mjs', import.meta.url).href;
  const { SCENARIOS } = await import(scenarioModule);
  const compareRef = process.env.BENCH_COMPARE || null;
  const latencyOnly = process.env.BENCH_ONLY === 'webhook-latency';
  const streamsOnly = process.env.BENCH_ONLY === 'streams';
  const webhooksOnly = process.env.BENCH_ONLY === 'webhooks' || latencyOnly;
  const wanted = (process.env.BENCH_ONLY ?? '').split(',').filter(Boolean);
  const scenarios = SCENARIOS.filter((s) => wanted.length === 0 || wanted.some((part) => s.name.includes(part)));
  // BENCH_COMPARE measures the request rows only; the hostile-body and webhook rows keep their own runs.
  const profiling = process.env.BENCH_PROFILE === '1';
  const runAttack =
    !compareRef && !profiling && !webhooksOnly && (!process.env.BENCH_ONLY || 'hostile bodies'.includes(process.env.BENCH_ONLY));
  if (scenarios.length === 0 && !runAttack && !webhooksOnly && !streamsOnly)
    throw new Error(`No scenario matches BENCH_ONLY="${process.env.BENCH_ONLY}"`);

  const stamp = Date.now();
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
    const { env, api, worker, baseline, compared, baseUrl, baselineUrl, apiKey, organizationId, userId, databaseUrl, profileDir } =
      await startDeployment({ stamp, compareRef, profiling, cleanups });

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
    if (streamsOnly) return await streamRows(env, measureWebhooks);
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
    // timed burst; 10 % this way: docs/performance-history.md, 2026-11-27 night).
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
    const streamed = [
      ['signed LiveKit webhooks', webhooks],
      ['10 customer endpoints (1 answering after 5 s)', withEndpoints],
      [`customer webhook latency run, ${WEBHOOK_RATE} LiveKit events/s offered`, atTargetLoad],
      ['10 % reordered and 10 % sent twice, rooms finished', disordered],
    ].filter(([, result]) => result?.streams);
    // BENCH_STREAMS=n: the streams open during each webhook row, judged as the event stream rows are.
    if (streamed.length > 0)
      process.stdout.write(
        formatStreamRows(streamed.map(([name, result]) => ({ name: `${name}, ${result.streams.streams} streams open`, result }))),
      );
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
    const streamsFailed = !process.env.BENCH_ONLY && (await streamRows(env, measureWebhooks)) !== 0;
    if (!process.env.BENCH_ONLY) await translatorRow();
    const transcriptsFailed = !process.env.BENCH_ONLY && (await transcriptRows()) !== 0;
    const reconcileFailed = !process.env.BENCH_ONLY && (await reconcileRows()) !== 0;
    return rows.some((row) => row.error) || streamsFailed || transcriptsFailed || reconcileFailed ? 1 : 0;
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
