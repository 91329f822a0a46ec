import { Logger } from '@nestjs/common';
import { Pool, types, type PoolConfig } from 'pg';
import type { AppConfig } from '../config/app-config';

// bigint columns (cents, serial ids) stay far below 2^53: read them as numbers, not strings, and so
// do bigint arrays (oid 1016, parsed as int4 arrays are, oid 1007). The generated row types say
// `number` for both (typesOverrides in scripts/query-types.mjs); row-types-at-run-time.spec.ts holds them to it.
types.setTypeParser(types.builtins.INT8, (value) => Number(value));
type Oid = Parameters<typeof types.getTypeParser>[0]; // pg-types names no array types
types.setTypeParser(1016 as Oid, types.getTypeParser(1007 as Oid) as (value: string) => (number | null)[]);

export type DatabaseConfig = Pick<AppConfig, 'databaseUrl' | 'databasePoolSize'>;
export type DatabaseTimeouts = Pick<AppConfig['timeouts'], 'databaseConnectMs' | 'databaseStatementMs' | 'databaseLockMs'>;

/**
 * node-postgres's pool options. Without `timeouts` (migrations, the CLI) statements may run as long as
 * they need. With them (the API and its workers), a connection or a pool slot that does not come, a
 * statement or a lock wait that lasts too long, fails fast: the request answers 503 instead of hanging.
 */
export function poolSettings({ databasePoolSize }: DatabaseConfig, timeouts?: DatabaseTimeouts): PoolConfig {
  return {
    max: databasePoolSize,
    ...(timeouts
      ? {
          connectionTimeoutMillis: timeouts.databaseConnectMs,
          statement_timeout: timeouts.databaseStatementMs,
          lock_timeout: timeouts.databaseLockMs,
          // statement_timeout is enforced by the server; a frozen server answers nothing, so the
          // client gives up a second later by itself (`isUnanswered`), and that connection is dropped.
          query_timeout: timeouts.databaseStatementMs + 1000,
        }
      : {}),
  };
}

/**
 * The pool `DatabaseClient` runs every statement on, made with pg's own API. The pool listens for
 * errors of its idle connections (a server shutting down, a cut connection) and drops them; without a
 * listener on the pool such an error would end the process.
 */
export function createPool(config: DatabaseConfig, timeouts?: DatabaseTimeouts): Pool {
  const logger = new Logger('DatabasePool');
  const pool = new Pool({ connectionString: config.databaseUrl, ...poolSettings(config, timeouts) });
  pool.on('error', (error) => logger.warn(`An idle PostgreSQL connection failed: ${error.message}`));
  return pool;
}

/** What node-postgres reports when the server did not answer within `query_timeout`: frozen or cut off, not merely slow. */
export function isUnanswered(error: unknown): boolean {
  return error instanceof Error && error.message === 'Query read timeout';
}
