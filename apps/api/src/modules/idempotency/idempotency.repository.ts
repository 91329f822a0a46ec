import { Injectable } from '@nestjs/common';
import { DatabaseClient } from '../../database/database.client';
import type { Sql, Tx } from '../../database/sql';
import { sql } from '../../database/typed-sql';
import type {
  IClaimQuery,
  ICompleteQuery,
  IDeleteExpiredQuery,
  IFindQuery,
  IFindResult,
  IForgetQuery,
} from './idempotency.repository.types';

/** A key's row: the request it was first used for and, once answered, the answer (`status_code` null while the first request runs). */
export type IdempotencyRecord = IFindResult;

export interface RecordedAnswer {
  statusCode: number;
  contentType: string | null;
  body: string;
}

/** How long keys last: a key older than `lifetimeHours`, or unanswered after `abandonedAfterSeconds`, is free again. */
export interface KeyLifetime {
  lifetimeHours: number;
  abandonedAfterSeconds: number;
}

// The primary key (organization_id, key) settles races: exactly one request inserts or takes over.
const CLAIM = sql<IClaimQuery>`INSERT INTO idempotency_keys (organization_id, key, fingerprint) VALUES ($organizationId!, $key!, $fingerprint!)
  ON CONFLICT (organization_id, key) DO UPDATE
    SET fingerprint = EXCLUDED.fingerprint, status_code = NULL, content_type = NULL, body = NULL, created_at = now()
    WHERE idempotency_keys.created_at < now() - make_interval(hours => $lifetimeHours!)
       OR (idempotency_keys.status_code IS NULL AND idempotency_keys.created_at < now() - make_interval(secs => $abandonedAfterSeconds!))
  RETURNING 1 AS claimed`;

const FIND = sql<IFindQuery>`SELECT fingerprint, status_code, content_type, body FROM idempotency_keys
  WHERE organization_id = $organizationId! AND key = $key!`;

const COMPLETE = sql<ICompleteQuery>`UPDATE idempotency_keys SET status_code = $statusCode!, content_type = $contentType, body = $body!
  WHERE organization_id = $organizationId! AND key = $key!`;

const FORGET = sql<IForgetQuery>`DELETE FROM idempotency_keys WHERE organization_id = $organizationId! AND key = $key!`;

const DELETE_EXPIRED = sql<IDeleteExpiredQuery>`DELETE FROM idempotency_keys WHERE created_at < now() - make_interval(hours => $lifetimeHours!)`;

/** The `idempotency_keys` rows, per organization and key. */
@Injectable()
export class IdempotencyRepository {
  constructor(private readonly database: DatabaseClient) {}

  /**
   * Inserts the key's row for a first request, or takes over an expired or abandoned one as if new;
   * false when a live row holds the key.
   */
  async claim(organizationId: string, key: string, fingerprint: string, lifetime: KeyLifetime, tx: Tx): Promise<boolean> {
    const rows = await tx.rows(CLAIM, { organizationId, key, fingerprint, ...lifetime });
    return rows.length > 0;
  }

  async find(organizationId: string, key: string, sql: Sql = this.database): Promise<IdempotencyRecord | undefined> {
    const [row] = await sql.rows(FIND, { organizationId, key });
    return row;
  }

  /** Stores the first request's answer with its key. */
  async complete(organizationId: string, key: string, answer: RecordedAnswer, tx: Tx): Promise<void> {
    await tx.rows(COMPLETE, { organizationId, key, ...answer });
  }

  async forget(organizationId: string, key: string, tx: Tx): Promise<void> {
    await tx.rows(FORGET, { organizationId, key });
  }

  /** Deletes the keys of every organization older than `lifetimeHours`; returns how many. */
  async deleteExpired(lifetimeHours: number, tx: Tx): Promise<number> {
    return tx.count(DELETE_EXPIRED, { lifetimeHours });
  }
}
