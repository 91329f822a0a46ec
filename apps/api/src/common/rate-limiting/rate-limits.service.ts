import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import { ApiError } from '../errors/api-error';
import { createRequestRedisConnection } from '../redis/redis-connection';

/** The budgets of docs/decisions.md ("Rate limits"); the name appears in the RateLimit headers. */
export type Budget = 'credential' | 'address' | 'failed-auth';

/**
 * Where a failed authentication is counted, per address: the API's bearer credentials (API keys,
 * session tokens, the metrics token) share one budget; each webhook route's signatures have their own.
 */
export type FailedAuthRoute = 'api' | 'livekit-webhook' | 'stripe-webhook';

/** One spent request: whether it was within the budget, what is left, and when the window resets. */
interface RateDecision {
  allowed: boolean;
  remaining: number;
  msBeforeNext: number;
}

const LOG_EVERY_MS = 60_000;
const resetSecondsOf = (msBeforeNext: number) => Math.max(1, Math.ceil(msBeforeNext / 1000));
const REDIS_TIMEOUT_MS = 250;

/** What one process holds of a budget key in the current window. */
interface Reservation {
  /** When the shared window (the Redis key) ends, by this process's clock. */
  windowEndsAt: number;
  /** Points reserved in Redis by this process and not spent yet. */
  unspent: number;
  /** What the shared budget had left after this process's last reservation (other processes' spends since are not seen). */
  sharedRemaining: number;
  /** The last reservation found the budget spent: once `unspent` is gone, refuse until the window ends. */
  exhausted: boolean;
}

/** Most points one process reserves at a time, and the share of the quota a block may take. */
const MAX_BLOCK = 50;
const BLOCK_SHARE = 40;
/** Keys kept in memory at most; past this, ended windows are dropped (and all of them if that is not enough). */
const MAX_RESERVATIONS = 10_000;

/** How many points a process reserves at once for a budget of `quota` a window (docs/decisions.md, "Rate limits"). */
export const blockSizeFor = (quota: number) => Math.min(MAX_BLOCK, Math.max(1, Math.floor(quota / BLOCK_SHARE)));

/**
 * Request budgets held in Redis (shared by every API process) through rate-limiter-flexible. A process
 * reserves a budget's points in blocks (one Redis round trip per block, concurrent requests of a key
 * wait for the same one) and spends them from memory, so most requests make no Redis call. With P
 * processes serving one key, between quota − (P − 1) × (block − 1) and quota requests are admitted in
 * a window, never more. Redis trouble never refuses a request: the limiter fails open, with a log line
 * at most once a minute.
 */
@Injectable()
export class RateLimitsService implements OnModuleDestroy {
  private readonly logger = new Logger('RateLimitsService');
  private readonly redis: Redis | null;
  private readonly limiters: Record<Budget, RateLimiterRedis> | null;
  /** The RateLimit-Policy value of each budget: it never changes, so it is built once. */
  private readonly policies: Record<Budget, string>;
  private readonly reservations = new Map<string, Reservation>();
  /** The reservation in flight per key: the requests that find no points left wait for it together. */
  private readonly reserving = new Map<string, Promise<boolean>>();
  private lastFailureLog = 0;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    const limits = config.rateLimits;
    const policyOf = (budget: Budget) => `"${budget}";q=${this.quota(budget)};w=${limits.windowSeconds}`;
    this.policies = { credential: policyOf('credential'), address: policyOf('address'), 'failed-auth': policyOf('failed-auth') };
    if (!limits.enabled) {
      this.redis = null;
      this.limiters = null;
      return;
    }
    // No offline queue and a short command timeout: with Redis gone or frozen a request waits for
    // nothing here, and the limiter fails open.
    this.redis = createRequestRedisConnection(config.redisUrl, 'rate-limits', REDIS_TIMEOUT_MS);
    this.redis.on('error', () => undefined); // reported by the failed calls, once a minute
    const limiter = (budget: Budget, points: number) =>
      new RateLimiterRedis({
        storeClient: this.redis,
        keyPrefix: `${config.queuePrefix}:rl:${budget}`,
        points,
        duration: limits.windowSeconds,
        rejectIfRedisNotReady: true,
      });
    this.limiters = {
      credential: limiter('credential', limits.perCredential),
      address: limiter('address', limits.perAddress),
      'failed-auth': limiter('failed-auth', limits.failedAuthPerAddress),
    };
  }

  /** Spends one request of `key`'s budget; throws 429 (with Retry-After) when the budget is spent. */
  async spend(budget: Budget, key: string): Promise<Record<string, string>> {
    const decision = await this.consume(budget, key);
    if (decision === null) return {};
    if (!decision.allowed) throw this.tooMany(budget, decision.msBeforeNext);
    return this.headersFor(budget, decision.remaining, decision.msBeforeNext);
  }

  /**
   * Counts a failed authentication of the address on `route` (a bad credential, metrics token or
   * webhook signature): the refusal to answer with, carrying that budget's headers, or 429 once the
   * budget is spent. Only failures are counted and only failures are refused: a valid credential from
   * the same address is never looked at here (docs/decisions.md, "Failed authentication").
   */
  async failedAuthentication(address: string, refusal: ApiError, route: FailedAuthRoute = 'api'): Promise<ApiError> {
    const decision = await this.consume('failed-auth', route === 'api' ? address : `${route}:${address}`);
    if (decision === null) return refusal;
    if (!decision.allowed) return this.tooMany('failed-auth', decision.msBeforeNext);
    const headers = this.headersFor('failed-auth', decision.remaining, decision.msBeforeNext);
    return new ApiError(refusal.status, refusal.message, { ...refusal.headers, ...headers });
  }

  async onModuleDestroy(): Promise<void> {
    this.redis?.disconnect();
    return Promise.resolve();
  }

  /** The decision of the shared budget; null when limits are off or Redis did not answer (fail open). */
  private async consume(budget: Budget, key: string): Promise<RateDecision | null> {
    if (!this.limiters) return null;
    const slot = `${budget}:${key}`;
    for (;;) {
      const held = this.reservations.get(slot);
      const now = Date.now();
      if (held && held.windowEndsAt > now) {
        if (held.unspent > 0) {
          held.unspent--;
          return { allowed: true, remaining: held.sharedRemaining + held.unspent, msBeforeNext: held.windowEndsAt - now };
        }
        if (held.exhausted) return { allowed: false, remaining: 0, msBeforeNext: held.windowEndsAt - now };
      }
      let reservation = this.reserving.get(slot);
      if (!reservation) {
        reservation = this.reserve(budget, key, slot).finally(() => this.reserving.delete(slot));
        this.reserving.set(slot, reservation);
      }
      // Each reservation either brings points or marks the budget spent, so this loop ends.
      if (!(await reservation)) return null;
    }
  }

  /** Takes a block of points from the shared budget; false when Redis did not answer. */
  private async reserve(budget: Budget, key: string, slot: string): Promise<boolean> {
    const quota = this.quota(budget);
    const block = blockSizeFor(quota);
    try {
      const res = await this.limiters![budget].consume(key, block);
      this.hold(slot, {
        windowEndsAt: Date.now() + res.msBeforeNext,
        unspent: block,
        sharedRemaining: res.remainingPoints,
        exhausted: false,
      });
      return true;
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) {
        this.logFailure(rejection);
        return false;
      }
      // The block went past the quota: what was left before it is this process's, then the key is spent.
      const granted = Math.max(0, quota - (rejection.consumedPoints - block));
      this.hold(slot, { windowEndsAt: Date.now() + rejection.msBeforeNext, unspent: granted, sharedRemaining: 0, exhausted: true });
      return true;
    }
  }

  private hold(slot: string, reservation: Reservation): void {
    if (this.reservations.size >= MAX_RESERVATIONS && !this.reservations.has(slot)) {
      const now = Date.now();
      for (const [held, { windowEndsAt }] of this.reservations) if (windowEndsAt <= now) this.reservations.delete(held);
      if (this.reservations.size >= MAX_RESERVATIONS) this.reservations.clear();
    }
    this.reservations.set(slot, reservation);
  }

  private quota(budget: Budget): number {
    const limits = this.config.rateLimits;
    return budget === 'credential' ? limits.perCredential : budget === 'address' ? limits.perAddress : limits.failedAuthPerAddress;
  }

  /** draft-ietf-httpapi-ratelimit-headers: the policy (quota per window) and what is left of it. */
  private headersFor(budget: Budget, remaining: number, msBeforeNext: number): Record<string, string> {
    return {
      'RateLimit-Policy': this.policies[budget],
      RateLimit: `"${budget}";r=${Math.max(0, remaining)};t=${resetSecondsOf(msBeforeNext)}`,
    };
  }

  private tooMany(budget: Budget, msBeforeNext: number): ApiError {
    const headers = this.headersFor(budget, 0, msBeforeNext);
    const retryAfter = String(resetSecondsOf(msBeforeNext));
    const what =
      budget === 'credential'
        ? 'this credential'
        : budget === 'address'
          ? 'your address on routes without authentication'
          : 'failed authentications from your address';
    return new ApiError(429, `Too many requests for ${what}: retry after ${retryAfter} seconds.`, {
      ...headers,
      'Retry-After': retryAfter,
    });
  }

  private logFailure(error: unknown): void {
    const now = Date.now();
    if (now - this.lastFailureLog < LOG_EVERY_MS) return;
    this.lastFailureLog = now;
    this.logger.warn(
      { err: error instanceof Error ? error.message : String(error) },
      'Rate limits are not enforced: Redis did not answer (failing open)',
    );
  }
}
