import type { Pool, QueryResultRow } from 'pg';
import type { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';

/**
 * A named statement straight on the pool, for the hottest read paths: Postgres parses and plans
 * it once per connection instead of on every request, and TypeORM's query runner is skipped.
 */
export async function preparedQuery<T extends QueryResultRow>(
  dataSource: DataSource,
  name: string,
  text: string,
  values: unknown[],
): Promise<T[]> {
  const pool = (dataSource.driver as PostgresDriver).master as Pool;
  const { rows } = await pool.query<T>({ name, text, values });
  return rows;
}
