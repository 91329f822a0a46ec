import { rawCount, rawRows } from '../support/raw-statements';
import type { DataSource } from 'typeorm';
import { DatabaseClient } from '../../src/database/database.client';
import { closeMediumDatabase, mediumPool, openMediumDatabase } from '../support/medium-database';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The server ends the connection of an open transaction (`pg_terminate_backend` sends the 57P01 of
 * a shutdown): the client emits `'error'` while checked out. The transaction rejects (a job that ran
 * it fails and is retried); the process does not crash, and the pool goes on with a new connection.
 */
describe('DatabaseClient.transaction on a connection the server ends', () => {
  let databaseUrl: string;
  let dataSource: DataSource;
  let database: DatabaseClient;

  beforeAll(async () => {
    ({ url: databaseUrl, dataSource } = await openMediumDatabase());
    database = new DatabaseClient(mediumPool(dataSource));
    await rawCount(database, `CREATE TABLE lost_probe (n int NOT NULL)`);
  });
  afterAll(async () => {
    await closeMediumDatabase(databaseUrl, dataSource);
  });

  async function terminate(pid: number): Promise<void> {
    await rawRows(database, `SELECT pg_terminate_backend($1)`, [pid]);
    const deadline = Date.now() + 10_000;
    while ((await rawRows(database, `SELECT 1 FROM pg_stat_activity WHERE pid = $1`, [pid])).length > 0) {
      if (Date.now() > deadline) throw new Error(`backend ${pid} still there`);
      await sleep(25);
    }
    await sleep(100); // the client reads the error and the end of its socket
  }

  async function expectUsable(): Promise<void> {
    await database.transaction(async (tx) => rawCount(tx, `INSERT INTO lost_probe VALUES (0)`));
    expect(await rawRows(database, `SELECT n FROM lost_probe`)).toEqual([{ n: 0 }]);
    await rawCount(database, `DELETE FROM lost_probe`);
    // No client of the pool is left broken or checked out.
    const pool = mediumPool(dataSource);
    expect(pool.totalCount - pool.idleCount).toBe(0);
  }

  it('rejects when the connection is ended between statements (the error event with no statement running)', async () => {
    const errors: Error[] = [];
    const transaction = database.transaction(async (tx) => {
      const [{ pid }] = await rawRows<{ pid: number }>(tx, `SELECT pg_backend_pid() AS pid`);
      await rawCount(tx, `INSERT INTO lost_probe VALUES (1)`);
      await terminate(pid);
      await rawCount(tx, `INSERT INTO lost_probe VALUES (2)`);
      return 'committed';
    });
    await transaction.catch((error: Error) => errors.push(error));
    expect(errors).toHaveLength(1);
    expect(await rawRows(database, `SELECT n FROM lost_probe`)).toEqual([]);
    await expectUsable();
  });

  it('rejects with 57P01 when the connection is ended during a statement', async () => {
    let pid = 0;
    const transaction = database.transaction(async (tx) => {
      [{ pid }] = await rawRows<{ pid: number }>(tx, `SELECT pg_backend_pid() AS pid`);
      await rawCount(tx, `INSERT INTO lost_probe VALUES (1)`);
      await rawRows(tx, `SELECT pg_sleep(30)`);
    });
    const failed = expect(transaction).rejects.toMatchObject({ code: '57P01' });
    while (pid === 0) await sleep(10);
    await sleep(200); // inside pg_sleep
    await terminate(pid);
    await failed;
    expect(await rawRows(database, `SELECT n FROM lost_probe`)).toEqual([]);
    await expectUsable();
  });
});
