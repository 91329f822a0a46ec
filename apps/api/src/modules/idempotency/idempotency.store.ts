import { Injectable, Optional } from '@nestjs/common';
import { PeriodicJobsScheduler } from '../../queue/periodic-jobs.scheduler';
import { IdempotencyRepository, type KeyLifetime, type RecordedAnswer } from './idempotency.repository';
import { DatabaseClient } from '../../database/database.client';

export const KEY_LIFETIME_HOURS = 24;
/** A first request that has not answered after this long died with its process: the key is free again. */
const ABANDONED_AFTER_SECONDS = 120;
const CLEANUP_INTERVAL_MS = 10 * 60_000;
const LIFETIME: KeyLifetime = { lifetimeHours: KEY_LIFETIME_HOURS, abandonedAfterSeconds: ABANDONED_AFTER_SECONDS };

export type Claim =
  | { kind: 'run' }
  | { kind: 'mismatch' }
  | { kind: 'running' }
  | { kind: 'replay'; statusCode: number; contentType: string | null; body: string };

export type StoredAnswer = RecordedAnswer;

/**
 * Idempotency keys per organization in PostgreSQL. The first request inserts the key's row (the
 * primary key settles races: exactly one runs); its answer is stored with it, or the row is
 * removed when the answer is a server error, so a retry runs afresh. Expired keys are deleted by a
 * periodic job (`idempotency.cleanup`), once per period for the whole deployment.
 */
@Injectable()
export class IdempotencyStore {
  constructor(
    private readonly keys: IdempotencyRepository,
    private readonly database: DatabaseClient,
    // Absent in the CLI, which loads the store without the queues and leaves the cleanup to the application.
    @Optional() periodic?: PeriodicJobsScheduler,
  ) {
    periodic?.register({ name: 'idempotency.cleanup', everyMs: CLEANUP_INTERVAL_MS, run: () => this.cleanup() });
  }

  async claim(organizationId: string, key: string, fingerprint: string): Promise<Claim> {
    // An expired key, or one whose first request was abandoned, is taken over as if new.
    if (await this.database.oneStatement((tx) => this.keys.claim(organizationId, key, fingerprint, LIFETIME, tx))) return { kind: 'run' };
    const row = await this.keys.find(organizationId, key);
    // Gone in between (its first request answered with a server error): this one runs afresh.
    if (!row) return this.claim(organizationId, key, fingerprint);
    if (row.fingerprint !== fingerprint) return { kind: 'mismatch' };
    if (row.status_code === null) return { kind: 'running' };
    return { kind: 'replay', statusCode: row.status_code, contentType: row.content_type, body: row.body ?? '' };
  }

  async remember(organizationId: string, key: string, answer: StoredAnswer): Promise<void> {
    await this.database.oneStatement((tx) => this.keys.complete(organizationId, key, answer, tx));
  }

  async forget(organizationId: string, key: string): Promise<void> {
    await this.database.oneStatement((tx) => this.keys.forget(organizationId, key, tx));
  }

  /** Deletes expired keys; returns how many. */
  async cleanup(): Promise<number> {
    return this.database.oneStatement((tx) => this.keys.deleteExpired(KEY_LIFETIME_HOURS, tx));
  }
}
