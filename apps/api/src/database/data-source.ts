import { types } from 'pg';
import { DataSource, type DataSourceOptions } from 'typeorm';
import type { AppConfig } from '../config/app-config';
import { FailFastClient } from './fail-fast-client';
import { MIGRATIONS } from './migrations';

// bigint columns (cents, serial ids) stay far below 2^53: read them as numbers, not strings, and so
// do bigint arrays (oid 1016, parsed as int4 arrays are, oid 1007). The generated row types say
// `number` for both (typesOverrides in scripts/query-types.mjs); row-types-at-run-time.spec.ts holds them to it.
types.setTypeParser(types.builtins.INT8, (value) => Number(value));
type Oid = Parameters<typeof types.getTypeParser>[0]; // pg-types names no array types
types.setTypeParser(1016 as Oid, types.getTypeParser(1007 as Oid) as (value: string) => (number | null)[]);

export type DatabaseConfig = Pick<AppConfig, 'databaseUrl' | 'databasePoolSize'>;
export type DatabaseTimeouts = Pick<AppConfig['timeouts'], 'databaseConnectMs' | 'databaseStatementMs' | 'databaseLockMs'>;

/**
 * Without `timeouts` (migrations, the CLI) statements may run as long as they need. With them (the
 * API and its workers), a connection or a pool slot that does not come, a statement or a lock wait
 * that lasts too long, fails fast: the request answers 503 instead of hanging.
 */
export function dataSourceOptions({ databaseUrl, databasePoolSize }: DatabaseConfig, timeouts?: DatabaseTimeouts): DataSourceOptions {
  return {
    type: 'postgres',
    url: databaseUrl,
    // No entities: every statement is SQL of its own (docs/decisions.md); TypeORM runs migrations and holds the pool.
    entities: [],
    migrations: MIGRATIONS,
    migrationsTableName: 'schema_migrations',
    synchronize: false,
    extra: {
      max: databasePoolSize,
      ...(timeouts
        ? {
            connectionTimeoutMillis: timeouts.databaseConnectMs,
            statement_timeout: timeouts.databaseStatementMs,
            lock_timeout: timeouts.databaseLockMs,
            // statement_timeout is enforced by the server; a frozen server answers nothing, so the
            // client gives up a second later by itself, and drops that connection.
            query_timeout: timeouts.databaseStatementMs + 1000,
            Client: FailFastClient,
          }
        : {}),
    },
  };
}

/** A small pool for one-off work (migrations, the start-up check). */
export function createDataSource(databaseUrl: string): DataSource {
  return new DataSource(dataSourceOptions({ databaseUrl, databasePoolSize: 2 }));
}
