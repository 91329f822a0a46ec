import type { ParamsOf, QueryTypes, TypedStatement } from './typed-sql';

/**
 * Where a repository runs its statements: the pool (each statement on its own) or one open
 * transaction (`DatabaseClient.transaction`). Repositories take it as their last parameter, so a
 * service decides what runs together and a repository only says how: optional (`sql: Sql =
 * this.database`) for a read, a required `tx: Tx` for a write or a lock.
 */
export interface Sql {
  /**
   * The rows of one statement (none for a write without RETURNING), typed from the schema (every
   * statement is a `sql`-tagged one: there is no untyped way to run SQL at run time); `R` may
   * narrow a column to the domain's type where a CHECK of the schema guarantees it (a status union).
   */
  rows<Q extends QueryTypes, R extends Q['result'] = Q['result']>(statement: TypedStatement<Q>, ...params: ParamsOf<Q>): Promise<R[]>;
  /** How many rows one write touched. */
  count<Q extends QueryTypes>(statement: TypedStatement<Q>, ...params: ParamsOf<Q>): Promise<number>;
}

/** The brand of a `Tx`: only `DatabaseClient.transaction`'s transactions carry it. */
export const IN_TRANSACTION: unique symbol = Symbol('in transaction');

/**
 * One open transaction, as `DatabaseClient.transaction` hands it out. Every repository method that
 * writes (or locks) takes one, required: the pool is a `Sql` but not a `Tx`, so a write that forgot
 * its transaction does not compile (docs/decisions.md "Writers take their transaction").
 */
export interface Tx extends Sql {
  readonly [IN_TRANSACTION]: true;
}
