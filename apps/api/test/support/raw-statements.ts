import type { Sql } from '../../src/database/sql';
import type { TypedStatement } from '../../src/database/typed-sql';

type Positional<R extends object> = TypedStatement<{ params: Record<string, unknown>; result: R }>;

/**
 * A test's own SQL (setting rows up, looking at them, killing a backend) run through a DatabaseClient
 * or a transaction with positional `$1…` values: the product runs only statements typed from the
 * schema; a test types what it reads itself.
 */
function positional<R extends object>(text: string, values: readonly unknown[]): [Positional<R>, Record<string, unknown>] {
  const names = values.map((_, index) => `p${index + 1}`);
  return [{ text, parameters: names, markedColumns: new Map() }, Object.fromEntries(names.map((name, index) => [name, values[index]]))];
}

export function rawRows<R extends object>(sql: Sql, text: string, values: readonly unknown[] = []): Promise<R[]> {
  const [statement, params] = positional<R>(text, values);
  return sql.rows(statement, params);
}

export function rawCount(sql: Sql, text: string, values: readonly unknown[] = []): Promise<number> {
  const [statement, params] = positional<object>(text, values);
  return sql.count(statement, params);
}
