// The harness of the bench rows that run the API in their own process (bench/transcripts.ts, bench/reconcile.ts):
// a database of their own (migrated, dropped after), a BullMQ prefix of their own (its keys deleted after), the
// application with its workers, and the development organization with its first user.
import type { INestApplication } from '@nestjs/common';
import IORedis from 'ioredis';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { createApp } from '../apps/api/src/app.factory';
import { devAccount } from '../apps/api/src/cli/dev-account';
import { loadConfig } from '../apps/api/src/config/app-config';
import { migrate } from '../apps/api/src/database/migrate';

export interface InProcessApp {
  app: INestApplication;
  databaseUrl: string;
  /** A connection of the bench's own to its database. */
  db: Client;
  redis: IORedis;
  queuePrefix: string;
  organizationId: string;
  userId: string;
  /** The development organization's API key. */
  apiKey: string;
}

/** Runs `work` against a fresh deployment named after `name`, with `env` on top of the defaults; cleans up after. */
export async function withInProcessApp(name: string, env: Record<string, string>, work: (deployment: InProcessApp) => Promise<void>) {
  const serverUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  const redisUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
  const stamp = Date.now();
  const databaseName = `trk_bench_${name}_${stamp}`;
  const admin = new Client({ connectionString: Object.assign(new URL(serverUrl), { pathname: '/postgres' }).toString() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${databaseName}`);
  const databaseUrl = Object.assign(new URL(serverUrl), { pathname: `/${databaseName}` }).toString();
  const queuePrefix = `trk_bench_${stamp}`;
  const redis = new IORedis(redisUrl, { maxRetriesPerRequest: null });
  try {
    await migrate(databaseUrl);
    const config = loadConfig({
      ...process.env,
      NODE_ENV: 'development',
      DATABASE_URL: databaseUrl,
      REDIS_URL: redisUrl,
      QUEUE_PREFIX: queuePrefix,
      LOG_LEVEL: 'silent',
      PORT: '0',
      ...env,
    });
    const app = await createApp(config);
    await app.listen(0, '127.0.0.1');
    const db = new Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const account = await devAccount(app, path.join(mkdtempSync(path.join(os.tmpdir(), 'trk-bench-')), 'account.json'));
      const [{ user_id }] = (
        await db.query(`SELECT id AS user_id FROM users WHERE organization_id = $1 LIMIT 1`, [account.organization_id])
      ).rows as { user_id: string }[];
      await work({
        app,
        databaseUrl,
        db,
        redis,
        queuePrefix,
        organizationId: account.organization_id,
        userId: user_id,
        apiKey: account.api_key,
      });
    } finally {
      await db.end();
      await app.close();
    }
  } finally {
    const keys = await redis.keys(`${queuePrefix}:*`);
    for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
    await redis.quit();
    await admin.query(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`);
    await admin.end();
  }
}

/** The `p`th percentile of `values`. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}
