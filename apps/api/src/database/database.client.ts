import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Pool, type PoolClient, type QueryConfig, type QueryResult } from 'pg';
import { isUnanswered } from './pool';
import { IN_TRANSACTION, type Sql, type Tx } from './sql';
import { type ParamsOf, type QueryTypes, type TypedStatement, unmarked, valuesOf } from './typed-sql';

export type Isolation = 'read committed' | 'repeatable read' | 'serializable';

export interface TransactionOptions {
  /** Default `read committed`. */
  readonly isolation?: Isolation;
  readonly readOnly?: boolean;
}

function config(statement: TypedStatement<QueryTypes>, params: object | void): QueryConfig {
  return { name: statement.name, text: statement.text, values: valuesOf(statement, params) };
}

/** Runs statements on one pg queryable (the pool or a checked-out client). */
class Statements implements Sql {
  constructor(private readonly on: Pool | PoolClient) {}

  async rows<Q extends QueryTypes, R extends Q['result'] = Q['result']>(
    statement: TypedStatement<Q>,
    ...params: ParamsOf<Q>
  ): Promise<R[]> {
    const result = await this.run(config(statement, params[0]));
    return unmarked<R>(statement, result.rows);
  }

  async count<Q extends QueryTypes>(statement: TypedStatement<Q>, ...params: ParamsOf<Q>): Promise<number> {
    const result = await this.run(config(statement, params[0]));
    return result.rowCount ?? 0;
  }

  /**
   * On the pool, a statement the server did not answer in time (`isUnanswered`) drops its connection
   * by itself: `pool.query` releases the client with the error, and pg ends a client whose statement
   * is still running by destroying its socket.
   */
  protected run(query: QueryConfig): Promise<QueryResult> {
    return this.on.query(query);
  }
}

/**
 * One open transaction: every statement run through it runs on its connection, inside it. Once one
 * statement went unanswered (the server frozen or cut off), its connection still waits for that
 * answer and would queue every later statement behind it, each waiting out its own timeout: they fail
 * at once instead, and `transaction()` drops the connection without trying a ROLLBACK on it.
 */
export class Transaction extends Statements implements Tx {
  readonly [IN_TRANSACTION] = true as const;
  unanswered: Error | undefined;

  protected override async run(query: QueryConfig): Promise<QueryResult> {
    if (this.unanswered) throw this.unanswered;
    try {
      return await super.run(query);
    } catch (error) {
      if (isUnanswered(error)) this.unanswered ??= error as Error;
      throw error;
    }
  }
}

/** A `Tx` of one statement on the pool (a statement is a transaction of its own); a second one throws. */
class OneStatement extends Statements implements Tx {
  readonly [IN_TRANSACTION] = true as const;
  private ran = false;

  override async rows<Q extends QueryTypes, R extends Q['result'] = Q['result']>(
    statement: TypedStatement<Q>,
    ...params: ParamsOf<Q>
  ): Promise<R[]> {
    this.once();
    return super.rows<Q, R>(statement, ...params);
  }

  override async count<Q extends QueryTypes>(statement: TypedStatement<Q>, ...params: ParamsOf<Q>): Promise<number> {
    this.once();
    return super.count(statement, ...params);
  }

  private once(): void {
    if (this.ran) throw new Error('oneStatement runs one statement: run a write of several in DatabaseClient.transaction.');
    this.ran = true;
  }
}

/**
 * The one way to reach PostgreSQL at run time (docs/decisions.md "Layers"): statements on the pool,
 * and `transaction`, the only place that opens, commits and rolls back a transaction. The pool is
 * node-postgres's own, made by `DatabaseModule` (`createPool`) and ended here when the application
 * stops; TypeORM only runs the migrations.
 */
@Injectable()
export class DatabaseClient extends Statements implements OnApplicationShutdown {
  private ending: Promise<void> | undefined;

  constructor(private readonly pool: Pool) {
    super(pool);
  }

  /** Ends the pool once, however often the application is closed. */
  async onApplicationShutdown(): Promise<void> {
    this.ending ??= this.pool.end();
    await this.ending;
  }

  /** Resolves when the server answers a statement (the readiness check). */
  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  /**
   * Runs `work`, a write of exactly one statement, on the pool: a statement is a transaction of its
   * own, so a lone write (an idempotency key, a delivery's outcome) costs no BEGIN and COMMIT round
   * trips. The `Tx` it hands out refuses a second statement.
   */
  async oneStatement<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return work(new OneStatement(this.pool));
  }

  /**
   * Runs `work` in one transaction on one connection: committed when it resolves, rolled back when
   * it throws. A connection whose ROLLBACK fails is closed instead of going back to the pool.
   *
   * The pool listens for errors on idle connections only: one checked out here that the server shuts
   * down (57P01) or that is cut emits `'error'` on the client, which would crash the process without
   * a listener. While checked out it has this one: the transaction fails (its statements and COMMIT
   * fail on a lost connection), the job or request that ran it fails, and the connection is dropped.
   */
  async transaction<T>(work: (tx: Transaction) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    const client = await this.pool.connect();
    const tx = new Transaction(client);
    let lost: Error | undefined;
    const onError = (error: Error): void => {
      lost ??= error;
    };
    client.on('error', onError);
    let broken: Error | undefined;
    try {
      await client.query(
        `BEGIN ISOLATION LEVEL ${(options.isolation ?? 'read committed').toUpperCase()}${options.readOnly ? ' READ ONLY' : ''}`,
      );
      const result = await work(tx);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      // A statement left unanswered (BEGIN and COMMIT included) leaves no connection to roll back on.
      lost ??= tx.unanswered ?? (isUnanswered(error) ? (error as Error) : undefined);
      if (!lost) {
        await client.query('ROLLBACK').catch((rollbackError: Error) => {
          broken = rollbackError;
        });
      }
      throw error;
    } finally {
      // The pool listens again from release on: no moment without a listener. Released with an
      // error, the connection is ended (its socket destroyed when a statement is still running).
      client.release(lost ?? broken);
      client.removeListener('error', onError);
    }
  }
}
