import { createDataSource } from './data-source';

/** True when the database lacks migrations this build has; the API refuses to start then. */
export async function hasPendingMigrations(databaseUrl: string): Promise<boolean> {
  const dataSource = createDataSource(databaseUrl);
  await dataSource.initialize();
  try {
    return await dataSource.showMigrations();
  } finally {
    await dataSource.destroy();
  }
}
