import { DataSource } from 'typeorm';
import { createDataSource, dataSourceOptions } from '../../src/database/data-source';
import { MIGRATIONS } from '../../src/database/migrations';
import { createEmptyTestDatabase, dropTestDatabase } from '../support/test-database';

/**
 * Every migration's down() puts back the schema its up() found, on a fresh database: migrated up one
 * migration at a time (each schema recorded), then undone one at a time with TypeORM's
 * undoLastMigration (each schema compared with the recorded one), then migrated up again whole.
 */

type Schema = Record<'columns' | 'constraints' | 'indexes' | 'functions' | 'triggers' | 'views' | 'types' | 'extensions', string[]>;

const CATALOG: Record<keyof Schema, string> = {
  // no ordinal position: a column dropped and added again comes back last
  columns: `SELECT table_name || '.' || column_name || ' ' || udt_name || ' ' || is_nullable || ' ' || coalesce(column_default, '') || ' ' || is_identity AS line
              FROM information_schema.columns WHERE table_schema = 'public'`,
  constraints: `SELECT conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid) AS line
                  FROM pg_constraint WHERE connamespace = 'public'::regnamespace`,
  indexes: `SELECT indexdef AS line FROM pg_indexes WHERE schemaname = 'public'`,
  functions: `SELECT pg_get_functiondef(oid) AS line FROM pg_proc WHERE pronamespace = 'public'::regnamespace`,
  triggers: `SELECT pg_get_triggerdef(oid) AS line FROM pg_trigger WHERE NOT tgisinternal`,
  views: `SELECT viewname || ' ' || definition AS line FROM pg_views WHERE schemaname = 'public'`,
  types: `SELECT typname || ' ' || typtype::text AS line FROM pg_type WHERE typnamespace = 'public'::regnamespace AND typtype IN ('e', 'd', 'r')`,
  extensions: `SELECT extname || ' ' || extversion AS line FROM pg_extension`,
};

async function schemaOf(dataSource: DataSource): Promise<Schema> {
  const schema = {} as Schema;
  for (const [part, sql] of Object.entries(CATALOG) as [keyof Schema, string][]) {
    const rows = (await dataSource.query(sql)) as { line: string }[];
    schema[part] = rows.map((row) => row.line).sort();
  }
  return schema;
}

/** Applies the first `count` migrations (those not yet applied) and returns the schema they leave. */
async function migratedUpTo(url: string, count: number): Promise<Schema> {
  const dataSource = new DataSource({
    ...dataSourceOptions({ databaseUrl: url, databasePoolSize: 1 }),
    migrations: MIGRATIONS.slice(0, count),
  });
  await dataSource.initialize();
  try {
    await dataSource.runMigrations({ transaction: 'each' });
    return await schemaOf(dataSource);
  } finally {
    await dataSource.destroy();
  }
}

describe('migrations down and up again, on a fresh database', () => {
  let url: string;
  let dataSource: DataSource;

  beforeAll(async () => {
    url = await createEmptyTestDatabase();
    dataSource = createDataSource(url);
  });

  afterAll(async () => {
    if (dataSource.isInitialized) await dataSource.destroy();
    await dropTestDatabase(url);
  });

  it('each down() gives back the schema its up() found, and every up() again gives the migrated schema', async () => {
    const after: Schema[] = [];
    for (let count = 0; count <= MIGRATIONS.length; count++) after.push(await migratedUpTo(url, count));
    expect(after[MIGRATIONS.length].functions.length).toBeGreaterThan(0);

    await dataSource.initialize();
    for (let count = MIGRATIONS.length - 1; count >= 0; count--) {
      await dataSource.undoLastMigration({ transaction: 'each' });
      // named, so that a failure says which down() left something behind
      expect({ undone: MIGRATIONS[count].name, schema: await schemaOf(dataSource) }).toEqual({
        undone: MIGRATIONS[count].name,
        schema: after[count],
      });
    }
    expect(await dataSource.showMigrations()).toBe(true);

    const applied = await dataSource.runMigrations({ transaction: 'each' });
    expect(applied.map((migration) => migration.name)).toEqual(MIGRATIONS.map((Migration) => new Migration().name));
    expect(await schemaOf(dataSource)).toEqual(after[MIGRATIONS.length]);
  });
});
