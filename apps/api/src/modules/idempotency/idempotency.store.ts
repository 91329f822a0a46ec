import { Injectable, Logger, Optional, StreamableFile } from '@nestjs/common';
import type { Request, Response } from 'express';
import { JSON_CONTENT_TYPE } from '../../common/http/json-reply';
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

/** A request whose Idempotency-Key it claimed (IdempotencyGuard): its answer is to be stored before it is sent. */
export interface IdempotentRequest extends Request {
  idempotent?: { organizationId: string; key: string };
}

/**
 * Idempotency keys per organization in PostgreSQL. The first request inserts the key's row (the
 * primary key settles races: exactly one runs); its answer is stored with it, or the row is
 * removed when the answer is a server error, so a retry runs afresh. Expired keys are deleted by a
 * periodic job (`idempotency.cleanup`), once per period for the whole deployment.
 */
@Injectable()
export class IdempotencyStore {
  private readonly logger = new Logger(IdempotencyStore.name);

  constructor(
    private readonly keys: IdempotencyRepository,
    private readonly database: DatabaseClient,
    // Absent in the CLI, which loads the store without the queues and leaves the cleanup to the application.
    @Optional() periodic?: PeriodicJobsScheduler,
  ) {
    periodic?.register({ name: 'idempotency.cleanup', everyMs: CLEANUP_INTERVAL_MS, run: () => this.cleanup() });
  }

  /**
   * Before a handler's value is sent (the adapter's `reply`): stores what will be sent, when the request
   * claimed a key; null (nothing to wait for) otherwise. An answer whose bytes are not known here (a
   * stream, a body the handler set itself) frees the key instead.
   */
  answered(response: Response, value: unknown, statusCode: number | undefined): Promise<void> | null {
    const request = response.req as IdempotentRequest;
    const claim = request.idempotent;
    if (!claim) return null;
    request.idempotent = undefined;
    return this.settle(claim, handlerAnswer(value, statusCode ?? response.statusCode, response.getHeader('content-type')));
  }

  /** Before an error's answer is sent (the exception filter): stores it, when the request claimed a key. */
  answeredWithError(request: Request, answer: { status: number; body: unknown }): Promise<void> | null {
    const claim = (request as IdempotentRequest).idempotent;
    if (!claim) return null;
    (request as IdempotentRequest).idempotent = undefined;
    return this.settle(claim, { statusCode: answer.status, contentType: JSON_CONTENT_TYPE, body: JSON.stringify(answer.body) });
  }

  /** A 4xx or 2xx answer is remembered; a 5xx (or unknown bytes) frees the key, so a retry runs afresh. A failure is logged, never thrown. */
  private async settle(claim: { organizationId: string; key: string }, answer: StoredAnswer | null): Promise<void> {
    try {
      if (answer && answer.statusCode < 500) await this.remember(claim.organizationId, claim.key, answer);
      else await this.forget(claim.organizationId, claim.key);
    } catch (error) {
      this.logger.error(`Storing the answer of an idempotent request failed: ${(error as Error).message}`);
    }
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

/** What Nest's adapter sends for a handler's value: no body for none, JSON for an object; null for anything else. */
function handlerAnswer(value: unknown, statusCode: number, contentType: unknown): StoredAnswer | null {
  if (value === undefined || value === null)
    return { statusCode, contentType: typeof contentType === 'string' ? contentType : null, body: '' };
  if (typeof value !== 'object' || value instanceof StreamableFile || contentType !== undefined) return null;
  return { statusCode, contentType: JSON_CONTENT_TYPE, body: JSON.stringify(value) };
}
