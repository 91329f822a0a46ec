import type { Pool, PoolClient, QueryResultRow } from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';

/** The pg pool under TypeORM. */
export function poolOf(dataSource: DataSource): Pool {
  return (dataSource.driver as PostgresDriver).master as Pool;
}

/**
 * A named statement straight on the pool (or on one client, inside its transaction), for the hottest
 * read paths: Postgres parses and plans it once per connection instead of on every request, and
 * TypeORM's query runner is skipped.
 */
export async function preparedQuery<T extends QueryResultRow>(
  on: DataSource | PoolClient,
  name: string,
  text: string,
  values: unknown[],
): Promise<T[]> {
  const target = on instanceof DataSource ? poolOf(on) : on;
  const { rows } = await target.query<T>({ name, text, values });
  return rows;
}
