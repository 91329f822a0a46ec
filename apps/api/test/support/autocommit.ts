import { IN_TRANSACTION, type Sql, type Tx } from '../../src/database/sql';
import type { ParamsOf, QueryTypes, TypedStatement } from '../../src/database/typed-sql';

/**
 * Tests only: a `Tx` whose every statement runs on `sql` (the pool) and commits by itself, so a
 * medium spec can set rows up and drive one writer at a time. The product has no such thing: its
 * writers run in `DatabaseClient.transaction`, or `oneStatement` for a lone statement.
 */
export function autocommit(sql: Sql): Tx {
  return {
    [IN_TRANSACTION]: true,
    rows: <Q extends QueryTypes, R extends Q['result'] = Q['result']>(statement: TypedStatement<Q>, ...params: ParamsOf<Q>) =>
      sql.rows<Q, R>(statement, ...params),
    count: <Q extends QueryTypes>(statement: TypedStatement<Q>, ...params: ParamsOf<Q>) => sql.count(statement, ...params),
  };
}
