// Once per test run: Postgres and Redis up, a template database migrated; each test file clones it.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensurePostgres, ensureRedis, serviceUrls } from '../../../../scripts/services.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

export default async function globalSetup() {
  // The server of DATABASE_URL (its database is never touched: every test database is trk_test_<run>_…) and REDIS_URL.
  const { databaseUrl: baseUrl, redisUrl } = serviceUrls();
  const postgres = await ensurePostgres(baseUrl);
  const redis = await ensureRedis(redisUrl);
  globalThis.__SERVICES__ = [postgres, redis];

  const runId = `${Date.now().toString(36)}_${process.pid}`;
  const template = `trk_test_template_${runId}`;
  const templateUrl = new URL(baseUrl);
  templateUrl.pathname = `/${template}`;
  const migrate = spawnSync(process.execPath, ['-r', '@swc-node/register', 'apps/api/src/database/migrate.ts'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: templateUrl.toString(), NODE_ENV: 'test' },
    encoding: 'utf8',
  });
  if (migrate.status !== 0) throw new Error(`Migrating the test template failed:\n${migrate.stdout}\n${migrate.stderr}`);

  process.env.TEST_TEMPLATE_DATABASE = template;
  process.env.TEST_DATABASE_BASE_URL = baseUrl;
  process.env.TEST_RUN_ID = runId;
  process.env.REDIS_URL = redisUrl;
  globalThis.__TEMPLATE__ = { baseUrl, template, runId, redisUrl };
}
