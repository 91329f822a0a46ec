import type { DataSource } from 'typeorm';
import { NotificationsClient } from '../../src/database/notifications.client';
import { closeMediumDatabase, openMediumDatabase } from '../support/medium-database';

const until = async (condition: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
};

/** LISTEN on the real PostgreSQL: notified at commit, listening again after its connection is cut, silent once closed. */
describe('database notifications', () => {
  let databaseUrl: string;
  let db: DataSource;

  beforeAll(async () => {
    ({ url: databaseUrl, dataSource: db } = await openMediumDatabase());
  });
  afterAll(async () => {
    await closeMediumDatabase(databaseUrl, db);
  });

  const listeners = async (): Promise<number[]> =>
    (
      (await db.query(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN%'`)) as { pid: number }[]
    ).map((row) => row.pid);

  it('calls back on commit only, listens again after losing its connection, and stops when closed', async () => {
    let notified = 0;
    let listening = 0;
    const listener = await new NotificationsClient(db).listen('test_channel', {
      onNotification: () => notified++,
      onListening: () => listening++,
    });
    expect(listening).toBe(1);
    expect(await listeners()).toHaveLength(1);

    // A rolled-back transaction notifies nobody; a committed one does.
    const runner = db.createQueryRunner();
    await runner.startTransaction();
    await runner.query(`SELECT pg_notify('test_channel', '')`);
    await runner.rollbackTransaction();
    await runner.release();
    await db.query(`NOTIFY other_channel`);
    await db.query(`NOTIFY test_channel`);
    await until(() => notified === 1);

    // The server ends the listening session: it listens again (and says so, for what it missed).
    const [pid] = await listeners();
    await db.query(`SELECT pg_terminate_backend($1)`, [pid]);
    await until(() => listening === 2);
    expect(await listeners()).not.toContain(pid);
    await db.query(`NOTIFY test_channel`);
    await until(() => notified === 2);

    await listener.close();
    expect(await listeners()).toEqual([]);
    await db.query(`NOTIFY test_channel`);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect({ notified, listening }).toEqual({ notified: 2, listening: 2 });
    expect(await listeners()).toEqual([]);
  });
});
