import type { INestApplication } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import request from 'supertest';
import type { DestinationStream } from 'pino';
import { DataSource } from 'typeorm';
import { createApp } from '../../src/app.factory';
import { loadConfig, type AppConfig } from '../../src/config/app-config';
import { createTestDatabase, dropTestDatabase } from './test-database';

export interface TestApp {
  app: INestApplication;
  server: Server;
  config: AppConfig;
  db: DataSource;
  http: () => ReturnType<typeof request>;
  close: () => Promise<void>;
}

/** The real application on its own cloned database and its own BullMQ prefix. */
export async function startTestApp(env: Record<string, string> = {}, logDestination?: DestinationStream): Promise<TestApp> {
  const databaseUrl = await createTestDatabase();
  const config = loadConfig({
    ...process.env,
    NODE_ENV: 'test',
    DATABASE_URL: databaseUrl,
    QUEUE_PREFIX: `trk_test_${randomBytes(4).toString('hex')}`,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    ...env,
  });
  const app = await createApp(config, logDestination);
  await app.init();
  const server = app.getHttpServer() as Server;
  const db = app.get(DataSource);
  return {
    app,
    server,
    config,
    db,
    http: () => request(server),
    close: async () => {
      await app.close();
      await dropTestDatabase(databaseUrl);
    },
  };
}
