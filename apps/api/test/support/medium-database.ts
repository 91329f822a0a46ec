import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';
import { createDataSource } from '../../src/database/data-source';
import { createPool } from '../../src/database/pool';
import { createTestDatabase, dropTestDatabase } from './test-database';

/** The pool `DatabaseClient` runs on for each open medium database (the application's is `DatabaseModule`'s). */
const pools = new WeakMap<DataSource, Pool>();

/** A database of its own for a medium spec (migrated, from the run's template), with its data source open. */
export async function openMediumDatabase(): Promise<{ url: string; dataSource: DataSource }> {
  const url = await createTestDatabase();
  const dataSource = createDataSource(url);
  await dataSource.initialize();
  pools.set(dataSource, createPool({ databaseUrl: url, databasePoolSize: 2 }));
  return { url, dataSource };
}

/** The node-postgres pool of the medium database of `dataSource`, for `new DatabaseClient(pool)`. */
export function mediumPool(dataSource: DataSource): Pool {
  const pool = pools.get(dataSource);
  if (!pool) throw new Error('Not a data source of openMediumDatabase');
  return pool;
}

/** Closes the pool and the data source and drops the database of `openMediumDatabase`. */
export async function closeMediumDatabase(url: string, dataSource: DataSource): Promise<void> {
  await pools.get(dataSource)?.end();
  pools.delete(dataSource);
  await dataSource.destroy();
  await dropTestDatabase(url);
}
