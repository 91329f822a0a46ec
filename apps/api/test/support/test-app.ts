import type { INestApplication } from '@nestjs/common';
import type { Server } from 'node:http';
import request from 'supertest';
import type { DestinationStream } from 'pino';
import { DataSource } from 'typeorm';
import { createApp } from '../../src/app.factory';
import { loadConfig, type AppConfig } from '../../src/config/app-config';
import { buildOpenApiDocument } from '../../src/openapi';
import { OpenApiAnswers } from './openapi-answers';
import { deleteKeysOf, testQueuePrefix } from './redis-keys';
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
  const t = await startTestAppOn(databaseUrl, env, logDestination);
  return {
    ...t,
    close: async () => {
      await t.close();
      await dropTestDatabase(databaseUrl);
    },
  };
}

/**
 * The application on an existing database, like another deployment of the same service; closing it leaves
 * the database, and removes its Redis keys unless its QUEUE_PREFIX was given (another app's, still running).
 */
export async function startTestAppOn(
  databaseUrl: string,
  env: Record<string, string> = {},
  logDestination?: DestinationStream,
): Promise<TestApp> {
  const config = loadConfig({
    ...process.env,
    NODE_ENV: 'test',
    DATABASE_URL: databaseUrl,
    QUEUE_PREFIX: testQueuePrefix(),
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    // Every test speaks from 127.0.0.1 and many send bad credentials on purpose: the failed-authentication
    // budget of one address would end them. rate-limits.e2e.spec.ts tests it with a budget of its own.
    RATE_LIMIT_FAILED_AUTH_PER_ADDRESS: '1000000',
    ...env,
  });
  const app = await createApp(config, logDestination);
  await app.init();
  const server = app.getHttpServer() as Server;
  const answers = new OpenApiAnswers(buildOpenApiDocument(app));
  return {
    app,
    server,
    config,
    db: app.get(DataSource),
    http: () => checkedAgainstDocument(request(server), answers),
    close: async () => {
      await app.close();
      if (env.QUEUE_PREFIX === undefined) await deleteKeysOf(config.redisUrl, config.queuePrefix);
    },
  };
}

const HTTP_METHODS = new Set(['get', 'post', 'put', 'patch', 'delete', 'head', 'options']);

/**
 * The supertest agent, with one more assertion on every request: the answer matches the OpenAPI
 * document the API serves (its status is documented for the operation, its body fits the schema).
 */
function checkedAgainstDocument(agent: ReturnType<typeof request>, answers: OpenApiAnswers): ReturnType<typeof request> {
  return new Proxy(agent, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof property !== 'string' || !HTTP_METHODS.has(property) || typeof value !== 'function') return value;
      return (url: string, ...rest: unknown[]) => {
        const test = (value as (url: string, ...rest: unknown[]) => request.Test).call(target, url, ...rest);
        return test.expect((res) => {
          const problem = answers.problem(property, url, res);
          if (problem) throw new Error(`The answer does not match the OpenAPI document: ${problem}`);
        });
      };
    },
  });
}
