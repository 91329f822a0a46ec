import { QUEUES } from '@app/contracts';
import type { DataSource } from 'typeorm';
import { DatabaseClient } from '../../src/database/database.client';
import { OutboxRepository, type OutboxJob } from '../../src/queue/outbox.repository';
import { autocommit } from '../support/autocommit';
import { closeMediumDatabase, mediumPool, openMediumDatabase } from '../support/medium-database';

/** `outbox_jobs` on the real database: jobs written with their transaction, read back oldest first, marked once enqueued. */
describe('OutboxRepository', () => {
  let databaseUrl: string;
  let db: DataSource;
  let database: DatabaseClient;
  let outbox: OutboxRepository;

  beforeAll(async () => {
    ({ url: databaseUrl, dataSource: db } = await openMediumDatabase());
    database = new DatabaseClient(mediumPool(db));
    outbox = new OutboxRepository(database);
  });
  afterAll(async () => {
    await closeMediumDatabase(databaseUrl, db);
  });
  beforeEach(async () => {
    await db.query(`DELETE FROM outbox_jobs`);
  });

  const job = (jobId: string, generation = 1): OutboxJob => ({
    queue: QUEUES.translatorPresence,
    name: 'translator.dismiss',
    jobId,
    payload: { roomId: 'room-1', livekitRoom: 'lk-1', generation },
  });

  it('keeps the jobs of a committed transaction, in the order written, and none of a rolled-back one', async () => {
    await database.transaction((tx) => outbox.insert([job('b.1'), job('a.2'), job('c.3')], tx));
    await expect(
      database.transaction(async (tx) => {
        await outbox.insert([job('rolled.back')], tx);
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect(await outbox.pending(10)).toEqual([job('b.1'), job('a.2'), job('c.3')]);
  });

  it('keeps the first job of an id written twice (the same decision repeated is a no-op)', async () => {
    await outbox.insert([job('room.7.dispatch', 7), job('room.7.dispatch', 8)], autocommit(database));
    await outbox.insert([job('room.7.dispatch', 9)], autocommit(database));
    const pending = await outbox.pending(10);
    expect(pending).toEqual([job('room.7.dispatch', 7)]);
    // The payload comes back as the object written, not as JSON text.
    expect(typeof pending[0].payload).toBe('object');
  });

  it('reads at most `limit` pending jobs, oldest first, and no longer those marked enqueued', async () => {
    await outbox.insert(
      Array.from({ length: 5 }, (_, i) => job(`job.${i}`)),
      autocommit(database),
    );
    expect((await outbox.pending(3)).map((j) => j.jobId)).toEqual(['job.0', 'job.1', 'job.2']);
    expect(await outbox.markEnqueued(['job.0', 'job.2', 'unknown'], autocommit(database))).toBe(2);
    expect(await outbox.markEnqueued(['job.0'], autocommit(database))).toBe(0);
    expect((await outbox.pending(10)).map((j) => j.jobId)).toEqual(['job.1', 'job.3', 'job.4']);
    const [{ enqueued_at }] = (await db.query(`SELECT enqueued_at FROM outbox_jobs WHERE job_id = 'job.0'`)) as { enqueued_at: Date }[];
    expect(enqueued_at).toBeInstanceOf(Date);
  });
});
