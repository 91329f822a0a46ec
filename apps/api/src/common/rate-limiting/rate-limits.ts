import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import IORedis, { type Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/app-config';
import { ApiError } from '../errors/api-error';

/** The budgets of docs/decisions.md ("Rate limits"); the name appears in the RateLimit headers. */
export type Budget = 'credential' | 'address' | 'failed-auth';

/** What the caller must send with the answer: the IETF RateLimit headers, and whether it is over. */
export interface RateDecision {
  allowed: boolean;
  headers: Record<string, string>;
}

const LOG_EVERY_MS = 60_000;
const REDIS_TIMEOUT_MS = 250;

/**
 * Request budgets held in Redis (shared by every API process) through rate-limiter-flexible. Redis
 * trouble never refuses a request: the limiter fails open, with a log line at most once a minute.
 */
@Injectable()
export class RateLimits implements OnModuleDestroy {
  private readonly logger = new Logger('RateLimits');
  private readonly redis: Redis | null;
  private readonly limiters: Record<Budget, RateLimiterRedis> | null;
  /** Addresses over their failed-authentication budget, until when: checked before any credential lookup. */
  private readonly blockedAddresses = new Map<string, number>();
  private lastFailureLog = 0;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    const limits = config.rateLimits;
    if (!limits.enabled) {
      this.redis = null;
      this.limiters = null;
      return;
    }
    // No offline queue and a short command timeout: with Redis gone or frozen a request waits for
    // nothing here, and the limiter fails open.
    this.redis = new IORedis(config.redisUrl, {
      connectionName: 'rate-limits',
      enableOfflineQueue: false,
      commandTimeout: REDIS_TIMEOUT_MS,
      maxRetriesPerRequest: 0,
    });
    this.redis.on('error', () => undefined); // reported by the failed calls, once a minute
    const limiter = (budget: Budget, points: number) =>
      new RateLimiterRedis({
        storeClient: this.redis,
        keyPrefix: `${config.queuePrefix}:rl:${budget}`,
        points,
        duration: limits.windowSeconds,
        // Once over, a key is refused from memory until its window ends: no Redis call per refused request.
        inMemoryBlockOnConsumed: points + 1,
        rejectIfRedisNotReady: true,
      });
    this.limiters = {
      credential: limiter('credential', limits.perCredential),
      address: limiter('address', limits.perAddress),
      'failed-auth': limiter('failed-auth', limits.failedAuthPerAddress),
    };
  }

  get enabled(): boolean {
    return this.limiters !== null;
  }

  /** Spends one request of `key`'s budget; throws 429 (with Retry-After) when the budget is spent. */
  async spend(budget: Budget, key: string): Promise<Record<string, string>> {
    const decision = await this.consume(budget, key);
    if (!decision.allowed) throw this.tooMany(budget, decision.headers);
    return decision.headers;
  }

  /** Throws 429 when the address has failed authentication too often in this window. */
  refuseBlockedAddress(address: string): void {
    const until = this.blockedAddresses.get(address);
    if (until === undefined) return;
    const left = until - Date.now();
    if (left <= 0) {
      this.blockedAddresses.delete(address);
      return;
    }
    throw this.tooMany('failed-auth', this.headersFor('failed-auth', 0, left));
  }

  /**
   * Counts a failed authentication of the address: the headers of that budget for its 401, or 429
   * once the budget is spent (the address is then refused until its window ends).
   */
  async recordFailedAuthentication(address: string): Promise<Record<string, string>> {
    const decision = await this.consume('failed-auth', address);
    if (decision.allowed) return decision.headers;
    if (this.blockedAddresses.size >= 10_000) this.blockedAddresses.clear();
    const resetSeconds = Number(/t=(\d+)/.exec(decision.headers.RateLimit)?.[1] ?? this.config.rateLimits.windowSeconds);
    this.blockedAddresses.set(address, Date.now() + resetSeconds * 1000);
    throw this.tooMany('failed-auth', decision.headers);
  }

  async onModuleDestroy(): Promise<void> {
    this.redis?.disconnect();
    return Promise.resolve();
  }

  private async consume(budget: Budget, key: string): Promise<RateDecision> {
    if (!this.limiters) return { allowed: true, headers: {} };
    try {
      const res = await this.limiters[budget].consume(key);
      return { allowed: true, headers: this.headersFor(budget, res.remainingPoints, res.msBeforeNext) };
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) {
        return { allowed: false, headers: this.headersFor(budget, 0, rejection.msBeforeNext) };
      }
      this.logFailure(rejection);
      return { allowed: true, headers: {} };
    }
  }

  private quota(budget: Budget): number {
    const limits = this.config.rateLimits;
    return budget === 'credential' ? limits.perCredential : budget === 'address' ? limits.perAddress : limits.failedAuthPerAddress;
  }

  /** draft-ietf-httpapi-ratelimit-headers: the policy (quota per window) and what is left of it. */
  private headersFor(budget: Budget, remaining: number, msBeforeNext: number): Record<string, string> {
    const resetSeconds = Math.max(1, Math.ceil(msBeforeNext / 1000));
    return {
      'RateLimit-Policy': `"${budget}";q=${this.quota(budget)};w=${this.config.rateLimits.windowSeconds}`,
      RateLimit: `"${budget}";r=${Math.max(0, remaining)};t=${resetSeconds}`,
    };
  }

  private tooMany(budget: Budget, headers: Record<string, string>): ApiError {
    const retryAfter = /t=(\d+)/.exec(headers.RateLimit)?.[1] ?? '1';
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
