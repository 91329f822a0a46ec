import { loadConfigOrExit } from '../config/app-config';
import { loadDotEnv } from '../config/dot-env';
import { createDataSource } from './data-source';
import { ensureDatabase } from './ensure-database';

/** Applies pending migrations to DATABASE_URL, creating the database first when missing. */
export async function migrate(databaseUrl: string): Promise<string[]> {
  await ensureDatabase(databaseUrl);
  const dataSource = createDataSource(databaseUrl);
  await dataSource.initialize();
  try {
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    return applied.map((m) => m.name);
  } finally {
    await dataSource.destroy();
  }
}

if (require.main === module) {
  loadDotEnv();
  const config = loadConfigOrExit();
  migrate(config.databaseUrl)
    .then((applied) => {
      process.stdout.write(applied.length ? `Applied migrations: ${applied.join(', ')}\n` : 'Database is up to date.\n');
    })
    .catch((error: Error) => {
      process.stderr.write(`Migration failed: ${error.message}\n`);
      process.exit(1);
    });
}
