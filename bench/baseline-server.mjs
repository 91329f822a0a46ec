// Bare baseline of `npm run bench`: NestJS on Express (same framework and HTTP stack as the API) with one
// endpoint doing one indexed SELECT over a pg.Pool of the API's size. No auth, no logging, no validation,
// no TypeORM: the difference between the API and this server is what the API's own layers cost.
//
// Env: PORT, DATABASE_URL, DATABASE_POOL_SIZE (default 20, as the API), BENCH_USER_ID (the user to select).
import 'reflect-metadata';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { Controller, Get, Inject, Module } = require('@nestjs/common');
const { NestFactory } = require('@nestjs/core');
const { ExpressAdapter } = require('@nestjs/platform-express');
const pg = require('pg');

const PG_POOL = 'PG_POOL';
const port = Number(process.env.PORT ?? 3100);
const userId = process.env.BENCH_USER_ID;
if (!process.env.DATABASE_URL || !userId) {
  process.stderr.write('baseline-server: DATABASE_URL and BENCH_USER_ID are required\n');
  process.exit(1);
}

class BaselineController {
  constructor(pool) {
    this.pool = pool;
  }

  live() {
    return { status: 'ok' };
  }

  async me() {
    const { rows } = await this.pool.query('SELECT id, email, first_name, last_name, image_url, created_at FROM users WHERE id = $1', [
      userId,
    ]);
    return rows[0];
  }
}

// What the TypeScript compiler emits for @Controller(), @Get() and @Inject() (manual DI, no build step).
Inject(PG_POOL)(BaselineController, undefined, 0);
for (const [method, route] of [
  ['live', 'health/live'],
  ['me', 'baseline/users/me'],
]) {
  const descriptor = Object.getOwnPropertyDescriptor(BaselineController.prototype, method);
  Object.defineProperty(
    BaselineController.prototype,
    method,
    Reflect.decorate([Get(route)], BaselineController.prototype, method, descriptor),
  );
}
const DecoratedController = Reflect.decorate([Controller()], BaselineController);

class BaselineModule {}
const DecoratedModule = Reflect.decorate(
  [
    Module({
      controllers: [DecoratedController],
      providers: [
        {
          provide: PG_POOL,
          useFactory: () => new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DATABASE_POOL_SIZE ?? 20) }),
        },
      ],
    }),
  ],
  BaselineModule,
);

const app = await NestFactory.create(DecoratedModule, new ExpressAdapter(), { logger: ['error'] });
app.getHttpAdapter().getInstance().disable('x-powered-by');
app.getHttpAdapter().getInstance().set('etag', false);
await app.listen(port, '127.0.0.1');
process.stdout.write(`baseline listening on http://127.0.0.1:${port}\n`);

const pool = app.get(PG_POOL);
const stop = async () => {
  await app.close().catch(() => undefined);
  await pool.end().catch(() => undefined);
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
