import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

function adminUrl(): URL {
  const base = process.env.TEST_DATABASE_BASE_URL;
  if (!base) throw new Error('TEST_DATABASE_BASE_URL is not set: run the tests through jest (global setup).');
  const url = new URL(base);
  url.pathname = '/postgres';
  return url;
}

/** A fresh database cloned from the migrated template; its name always contains `test`. */
export async function createTestDatabase(): Promise<string> {
  const template = process.env.TEST_TEMPLATE_DATABASE;
  if (!template) throw new Error('Test template database missing: run the tests through jest.');
  return createDatabase(template);
}

/** A fresh database with no migration applied, as `npm run migrate` creates one (for the migrations' own tests); its name always contains `test`. */
export async function createEmptyTestDatabase(): Promise<string> {
  return createDatabase('template1');
}

async function createDatabase(template: string): Promise<string> {
  const runId = process.env.TEST_RUN_ID;
  if (!runId) throw new Error('Test run id missing: run the tests through jest.');
  const name = `trk_test_${runId}_${randomBytes(4).toString('hex')}`;
  if (!name.includes('test')) throw new Error(`Refusing database "${name}": its name lacks "test"`);
  const admin = new Client({ connectionString: adminUrl().toString() });
  await admin.connect();
  try {
    // CREATE DATABASE ... TEMPLATE fails while another session is connected to the template: retry briefly.
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.query(`CREATE DATABASE "${name}" WITH TEMPLATE "${template}"`);
        break;
      } catch (error) {
        if (attempt >= 20) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 200));
      }
    }
  } finally {
    await admin.end();
  }
  const url = adminUrl();
  url.pathname = `/${name}`;
  return url.toString();
}

export async function dropTestDatabase(databaseUrl: string): Promise<void> {
  const name = new URL(databaseUrl).pathname.slice(1);
  if (!name.includes('test')) throw new Error(`Refusing to drop "${name}": its name lacks "test"`);
  const admin = new Client({ connectionString: adminUrl().toString() });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}
