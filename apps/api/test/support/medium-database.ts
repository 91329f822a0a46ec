import type { DataSource } from 'typeorm';
import { createDataSource } from '../../src/database/data-source';
import { createTestDatabase, dropTestDatabase } from './test-database';

/** A database of its own for a medium spec (migrated, from the run's template), with its data source open. */
export async function openMediumDatabase(): Promise<{ url: string; dataSource: DataSource }> {
  const url = await createTestDatabase();
  const dataSource = createDataSource(url);
  await dataSource.initialize();
  return { url, dataSource };
}

/** Closes the data source and drops the database of `openMediumDatabase`. */
export async function closeMediumDatabase(url: string, dataSource: DataSource): Promise<void> {
  await dataSource.destroy();
  await dropTestDatabase(url);
}
