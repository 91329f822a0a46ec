import { BatchedLoader } from './batched-loader';
import type { Sql } from '../../database/sql';
import type { ParamsOf, QueryTypes, TypedStatement } from '../../database/typed-sql';

/**
 * Rows loaded by key for the requests that arrive together: one prepared statement per batch (one
 * batch in flight, up to 100 keys), taking the batch's keys as its one (array) parameter. Each load is
 * issued after its caller asked, so it sees everything committed before. `parameterOf` turns the keys
 * into what the statement compares (hex strings into bytea, say); `keyOf` finds a row's key. `R` may
 * narrow columns to the domain's types (Sql.rows).
 */
export function batchedRows<K, Q extends QueryTypes, R extends Q['result'] = Q['result']>(
  sql: Sql,
  statement: TypedStatement<Q>,
  keyOf: (row: R) => K,
  parameterOf: (keys: K[]) => unknown = (keys) => keys,
): BatchedLoader<K, R> {
  const [parameter] = statement.parameters;
  if (statement.parameters.length !== 1 || !statement.name) {
    throw new Error('A batched read is a prepared statement with one parameter: the batch of keys.');
  }
  return new BatchedLoader<K, R>(
    async (keys) => {
      const params = [{ [parameter]: parameterOf(keys) }] as ParamsOf<Q>;
      const rows = await sql.rows<Q, R>(statement, ...params);
      return new Map(rows.map((row) => [keyOf(row), row]));
    },
    { maxBatch: 100, parallel: 1 },
  );
}
