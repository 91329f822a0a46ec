import { DataSource, type DataSourceOptions } from 'typeorm';
import { MIGRATIONS } from './migrations';
import { poolSettings, type DatabaseConfig, type DatabaseTimeouts } from './pool';

/**
 * TypeORM's DataSource: it runs the migrations (`migrate.ts`, the start-up check) and answers raw
 * queries of the tests (`app.get(DataSource)`). Statements of the application run on the pool of
 * `DatabaseModule`, never on this one; its pool takes the same settings (`poolSettings`).
 */
export function dataSourceOptions(config: DatabaseConfig, timeouts?: DatabaseTimeouts): DataSourceOptions {
  return {
    type: 'postgres',
    url: config.databaseUrl,
    // No entities: every statement is SQL of its own (docs/decisions.md); TypeORM runs the migrations.
    entities: [],
    migrations: MIGRATIONS,
    migrationsTableName: 'schema_migrations',
    synchronize: false,
    extra: poolSettings(config, timeouts),
  };
}

/** A small pool for one-off work (migrations, the start-up check). */
export function createDataSource(databaseUrl: string): DataSource {
  return new DataSource(dataSourceOptions({ databaseUrl, databasePoolSize: 2 }));
}
