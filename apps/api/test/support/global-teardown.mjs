import pg from 'pg';

/** Drops every database this run created, then stops services the run itself started. */
export default async function globalTeardown() {
  const { baseUrl, runId } = globalThis.__TEMPLATE__ ?? {};
  if (baseUrl && runId) {
    const admin = new URL(baseUrl);
    admin.pathname = '/postgres';
    const client = new pg.Client({ connectionString: admin.toString() });
    await client.connect();
    const { rows } = await client.query(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [`trk_test_%${runId}%`]);
    for (const { datname } of rows) {
      await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    }
    await client.end();
  }
  for (const service of globalThis.__SERVICES__ ?? []) await service.stop();
}
