import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Database } from '../../database/database';

export const KEY_LIFETIME_HOURS = 24;
/** A first request that has not answered after this long died with its process: the key is free again. */
const ABANDONED_AFTER_SECONDS = 120;
const CLEANUP_INTERVAL_MS = 10 * 60_000;

export type Claim =
  | { kind: 'run' }
  | { kind: 'mismatch' }
  | { kind: 'running' }
  | { kind: 'replay'; statusCode: number; contentType: string | null; body: string };

export interface StoredAnswer {
  statusCode: number;
  contentType: string | null;
  body: string;
}

/**
 * Idempotency keys per organization in PostgreSQL. The first request inserts the key's row (the
 * primary key settles races: exactly one runs); its answer is stored with it, or the row is
 * removed when the answer is a server error, so a retry runs afresh.
 */
@Injectable()
export class IdempotencyStore implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(IdempotencyStore.name);
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly database: Database) {}

  async claim(organizationId: string, key: string, fingerprint: string): Promise<Claim> {
    // An expired key, or one whose first request was abandoned, is taken over as if new.
    const inserted = (await this.database.rows(
      `INSERT INTO idempotency_keys (organization_id, key, fingerprint) VALUES ($1, $2, $3)
       ON CONFLICT (organization_id, key) DO UPDATE
         SET fingerprint = EXCLUDED.fingerprint, status_code = NULL, content_type = NULL, body = NULL, created_at = now()
         WHERE idempotency_keys.created_at < now() - make_interval(hours => $4)
            OR (idempotency_keys.status_code IS NULL AND idempotency_keys.created_at < now() - make_interval(secs => $5))
       RETURNING 1`,
      [organizationId, key, fingerprint, KEY_LIFETIME_HOURS, ABANDONED_AFTER_SECONDS],
    )) as unknown[];
    if (inserted.length > 0) return { kind: 'run' };
    const [row] = (await this.database.rows(
      `SELECT fingerprint, status_code, content_type, body FROM idempotency_keys WHERE organization_id = $1 AND key = $2`,
      [organizationId, key],
    )) as { fingerprint: string; status_code: number | null; content_type: string | null; body: string | null }[];
    // Gone in between (its first request answered with a server error): this one runs afresh.
    if (!row) return this.claim(organizationId, key, fingerprint);
    if (row.fingerprint !== fingerprint) return { kind: 'mismatch' };
    if (row.status_code === null) return { kind: 'running' };
    return { kind: 'replay', statusCode: row.status_code, contentType: row.content_type, body: row.body ?? '' };
  }

  async remember(organizationId: string, key: string, answer: StoredAnswer): Promise<void> {
    await this.database.rows(
      `UPDATE idempotency_keys SET status_code = $3, content_type = $4, body = $5 WHERE organization_id = $1 AND key = $2`,
      [organizationId, key, answer.statusCode, answer.contentType, answer.body],
    );
  }

  async forget(organizationId: string, key: string): Promise<void> {
    await this.database.rows(`DELETE FROM idempotency_keys WHERE organization_id = $1 AND key = $2`, [organizationId, key]);
  }

  /** Deletes expired keys; returns how many. */
  async cleanup(): Promise<number> {
    return this.database.count(`DELETE FROM idempotency_keys WHERE created_at < now() - make_interval(hours => $1)`, [KEY_LIFETIME_HOURS]);
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      this.cleanup().catch((error: Error) => this.logger.warn(`Idempotency key cleanup failed: ${error.message}`));
    }, CLEANUP_INTERVAL_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
