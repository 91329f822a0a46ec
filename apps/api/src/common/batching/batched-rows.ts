import type { QueryResultRow } from 'pg';
import { BatchedLoader } from './batched-loader';
import type { Sql, Statement } from '../../database/sql';

/**
 * Rows loaded by key for the requests that arrive together: one named statement per batch (one batch
 * in flight, up to 100 keys), taking the batch's keys as its array parameter `$1`. Each load is issued
 * after its caller asked, so it sees everything committed before. `parameterOf` turns the keys into
 * what the statement compares (hex strings into bytea, say); `keyOf` finds a row's key.
 */
export function batchedRows<K, R extends QueryResultRow>(
  sql: Sql,
  statement: Required<Statement>,
  keyOf: (row: R) => K,
  parameterOf: (keys: K[]) => unknown = (keys) => keys,
): BatchedLoader<K, R> {
  return new BatchedLoader<K, R>(
    async (keys) => {
      const rows = await sql.rows<R>(statement, [parameterOf(keys)]);
      return new Map(rows.map((row) => [keyOf(row), row]));
    },
    { maxBatch: 100, parallel: 1 },
  );
}
