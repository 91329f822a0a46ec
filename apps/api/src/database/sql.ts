import type { QueryResultRow } from 'pg';
import type { ParamsOf, QueryTypes, TypedStatement } from './typed-sql';

/**
 * One statement. A `name` makes it a prepared statement: Postgres parses and plans it once per
 * connection instead of on every call (kept for the hot read paths, where the bench shows it).
 */
export interface Statement {
  readonly name?: string;
  readonly text: string;
}

/**
 * Where a repository runs its statements: the pool (each statement on its own) or one open
 * transaction (`DatabaseClient.transaction`). Repositories take it as their last, optional parameter, so
 * a service decides what runs together and a repository only says how.
 */
export interface Sql {
  /**
   * The rows of one statement (none for a write without RETURNING), typed from the schema; `R` may
   * narrow a column to the domain's type where a CHECK of the schema guarantees it (a status union).
   */
  rows<Q extends QueryTypes, R extends Q['result'] = Q['result']>(statement: TypedStatement<Q>, ...params: ParamsOf<Q>): Promise<R[]>;
  rows<R extends QueryResultRow>(statement: string | Statement, values?: readonly unknown[]): Promise<R[]>;
  /** How many rows one write touched. */
  count<Q extends QueryTypes>(statement: TypedStatement<Q>, ...params: ParamsOf<Q>): Promise<number>;
  count(statement: string | Statement, values?: readonly unknown[]): Promise<number>;
}

export type { QueryResultRow };
