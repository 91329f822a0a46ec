import { Injectable } from '@nestjs/common';
import type { QueueName } from '@app/contracts';
import { DatabaseClient } from '../database/database.client';
import type { Sql, Tx } from '../database/sql';
import { type Narrowed, sql } from '../database/typed-sql';
import type { IInsertQuery, IMarkEnqueuedQuery, IPendingQuery, IPendingResult } from './outbox.repository.types';

/** A job decided inside a transaction, as the outbox keeps it until it is enqueued. */
export interface OutboxJob {
  queue: QueueName;
  name: string;
  /** Deterministic: the same decision always has the same id, so enqueuing twice is a no-op. */
  jobId: string;
  payload: object;
}

type OutboxRow = Narrowed<IPendingResult, { queue: QueueName }>;

// Jobs of no organization (queue payloads of the service itself): no statement here is scoped to one.
const INSERT = sql<IInsertQuery>`INSERT INTO outbox_jobs (queue, job_name, job_id, payload)
  SELECT queue, job_name, job_id, payload
    FROM unnest($queues!::text[], $names!::text[], $jobIds!::text[], $payloads!::jsonb[])
      WITH ORDINALITY AS j(queue, job_name, job_id, payload, n)
   ORDER BY n
  ON CONFLICT (job_id) DO NOTHING`;

const PENDING = sql<IPendingQuery>`SELECT queue, job_name, job_id, payload FROM outbox_jobs
  WHERE enqueued_at IS NULL ORDER BY id LIMIT $limit!`;

const MARK_ENQUEUED = sql<IMarkEnqueuedQuery>`UPDATE outbox_jobs SET enqueued_at = now()
  WHERE job_id = ANY($jobIds!) AND enqueued_at IS NULL`;

/** `outbox_jobs`: jobs written with the transaction that decided them, enqueued after its commit. */
@Injectable()
export class OutboxRepository {
  constructor(private readonly database: DatabaseClient) {}

  /** Writes the jobs (in the caller's transaction); a job id already written is kept as it was. */
  async insert(jobs: OutboxJob[], tx: Tx): Promise<void> {
    if (jobs.length === 0) return;
    await tx.count(INSERT, {
      queues: jobs.map((job) => job.queue),
      names: jobs.map((job) => job.name),
      jobIds: jobs.map((job) => job.jobId),
      payloads: jobs.map((job) => JSON.stringify(job.payload)),
    });
  }

  /** The oldest jobs not yet enqueued, in the order they were written. */
  async pending(limit: number, sql: Sql = this.database): Promise<OutboxJob[]> {
    const rows = await sql.rows<IPendingQuery, OutboxRow>(PENDING, { limit });
    return rows.map((row) => ({ queue: row.queue, name: row.job_name, jobId: row.job_id, payload: row.payload as object }));
  }

  /** Marks the jobs enqueued; how many were not marked before. */
  async markEnqueued(jobIds: string[], tx: Tx): Promise<number> {
    if (jobIds.length === 0) return 0;
    return tx.count(MARK_ENQUEUED, { jobIds });
  }
}
