import { Client } from 'pg';

type Query = (this: Client, ...args: unknown[]) => unknown;

/**
 * When the server does not answer within `query_timeout` (it is frozen or cut off, not merely slow:
 * a slow statement ends at `statement_timeout` first), node-postgres fails the query but keeps the
 * connection, and every later query on it (a transaction's ROLLBACK) waits out its own timeout
 * behind the one that never ended. Dropping the connection fails them at once, and the pool then
 * discards it.
 */
function dropIfUnanswered(client: Client, error: unknown): void {
  if (error instanceof Error && error.message === 'Query read timeout') {
    (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
  }
}

export class FailFastClient extends Client {}

// Client.prototype.query is looked up on each call, not captured once: whatever wraps it still applies.
const query = (client: Client, args: unknown[]): unknown => (Client.prototype.query as unknown as Query).apply(client, args);
(FailFastClient.prototype as unknown as { query: Query }).query = function (this: Client, ...args: unknown[]): unknown {
  const callback = args[args.length - 1];
  if (typeof callback === 'function') {
    args[args.length - 1] = (error: unknown, result: unknown) => {
      if (error) dropIfUnanswered(this, error);
      (callback as (error: unknown, result: unknown) => void)(error, result);
    };
    return query(this, args);
  }
  const result = query(this, args);
  if (result instanceof Promise) result.catch((error: unknown) => dropIfUnanswered(this, error));
  return result;
};
