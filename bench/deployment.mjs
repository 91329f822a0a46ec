// The bench's deployment: a database of its own on the PostgreSQL server, Redis, the LiveKit double,
// the migrated schema, one organization with credit and an API key, and the production build running as
// `npm run dev` runs it (the API, one worker process) beside the bare baseline (and, with BENCH_COMPARE,
// the API of the other build on the same database).
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { DEFAULT_DATABASE_URL, DEFAULT_REDIS_URL, deleteRedisKeys, ensurePostgres, ensureRedis } from '../scripts/services.mjs';
import { SERVER_NODE_FLAGS } from '../scripts/server-node-flags.mjs';
import { freePort, log, prepareComparedBuild, run, startChild, waitUntilLive } from './processes.mjs';
import { CONNECTIONS, DIST, DURATION, POOL_SIZE, ROOT, ROUNDS, WARMUP } from './settings.mjs';

/**
 * Starts everything the rows measure; each thing started pushes its undoing onto `cleanups` (run last
 * first). `stamp` names the database, the queue prefix and the profiles' folder.
 */
export async function startDeployment({ stamp, compareRef, profiling, cleanups }) {
  const serverUrl = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
  const redisUrl = process.env.REDIS_URL || DEFAULT_REDIS_URL;
  const databaseName = `trk_bench_${stamp}`;
  const databaseUrl = Object.assign(new URL(serverUrl), { pathname: `/${databaseName}` }).toString();
  const adminUrl = Object.assign(new URL(serverUrl), { pathname: '/postgres' }).toString();
  const queuePrefix = `trk_bench_${stamp}`;

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
    // The webhook rows' participants exist only in their events (the double lists none): reconciliation,
    // which would end them where LiveKit last listed them, has its own row (BENCH_ONLY=reconcile).
    LIVEKIT_RECONCILE_SECONDS: '86400',
    // The key-creation row creates keys for as long as it runs.
    MAX_ACTIVE_API_KEYS_PER_ORGANIZATION: '10000000',
    // The event stream rows open 100 streams on one organization too: the fan-out's worst case.
    EVENT_STREAMS_PER_ORGANIZATION: '100',
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
  const { organization_id: organizationId, user_id: userId, api_key: apiKey } = await createOrganization(env, 'Bench Org', 'bench');

  const apiPort = await freePort();
  // Deployed as in `npm run dev`: the API answers requests, a worker process applies queued events,
  // both with the V8 flags they are deployed with (the compared build's API too).
  const nodeArgs = (process.env.BENCH_API_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const profileDir = profiling ? path.join(ROOT, '.data/bench-profiles', String(stamp)) : null;
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  // An API process of a build (this one or the compared one): HTTP only, profiled with BENCH_PROFILE.
  const startApi = (label, dist, port) =>
    startChild(
      label,
      [
        ...(profileDir ? ['-r', path.join(ROOT, 'bench/cpu-profile-preload.cjs')] : []),
        ...SERVER_NODE_FLAGS,
        ...nodeArgs,
        path.join(dist, 'main.js'),
      ],
      { ...env, PORT: String(port), RUN_QUEUE_WORKERS: 'false', ...(profileDir ? { BENCH_PROFILE_DIR: profileDir } : {}) },
    );
  const api = startApi('API', DIST, apiPort);
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
    const oldApi = startApi(`API ${comparedBuild.ref}`, comparedBuild.dist, oldPort);
    compared = { ...comparedBuild, child: oldApi, baseUrl: `http://127.0.0.1:${oldPort}` };
    await waitUntilLive(oldApi, `${compared.baseUrl}/health/live`);
    log(`API of ${comparedBuild.ref} (${comparedBuild.sha.slice(0, 12)}) on ${compared.baseUrl}`);
  }
  log(
    `API on ${baseUrl}, baseline on ${baselineUrl}; ${DURATION}s each in ${ROUNDS} rounds after ${WARMUP}s warm-up, ${CONNECTIONS} connections`,
  );
  return { env, api, worker, baseline, compared, baseUrl, baselineUrl, apiKey, organizationId, userId, databaseUrl, profileDir };
}

/** An organization made by the CLI, as an operator would (`org:create`, then `credit:grant`): its ids and API key. */
export async function createOrganization(env, name, emailName) {
  const cli = path.join(DIST, 'cli/main.js');
  const created = await run(
    process.execPath,
    [cli, 'org:create', '--name', name, '--email', `${emailName}@example.com`, '--first-name', 'Bench', '--last-name', 'User'],
    env,
  );
  const organization = JSON.parse(created.trim().split('\n').pop());
  if (!organization.api_key || !organization.user_id) throw new Error(`org:create printed no api_key/user_id: ${created}`);
  await run(process.execPath, [cli, 'credit:grant', '--org', organization.organization_id, '--cents', '100000000'], env);
  return organization;
}
