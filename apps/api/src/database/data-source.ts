import { types } from 'pg';
import { DataSource, type DataSourceOptions } from 'typeorm';
import type { AppConfig } from '../config/app-config';
import { ENTITIES } from './entities';
import { MIGRATIONS } from './migrations';

// bigint columns (cents, serial ids) stay far below 2^53: read them as numbers, not strings.
types.setTypeParser(types.builtins.INT8, (value) => Number(value));

export type DatabaseConfig = Pick<AppConfig, 'databaseUrl' | 'databasePoolSize'>;

export function dataSourceOptions({ databaseUrl, databasePoolSize }: DatabaseConfig): DataSourceOptions {
  return {
    type: 'postgres',
    url: databaseUrl,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'schema_migrations',
    synchronize: false,
    extra: { max: databasePoolSize },
  };
}

/** A small pool for one-off work (migrations, the start-up check). */
export function createDataSource(databaseUrl: string): DataSource {
  return new DataSource(dataSourceOptions({ databaseUrl, databasePoolSize: 2 }));
}
