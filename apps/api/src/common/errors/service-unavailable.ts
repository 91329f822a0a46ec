import { ApiError } from './api-error';

/** What a 503 is waiting for: a dependency that is down or slow, or a setting the operator must add. */
export type Unavailable = 'postgres' | 'redis' | 'livekit' | 'stripe' | 'configuration';

/** Seconds a client should wait before trying again (docs/decisions.md, "Outages"). */
export const RETRY_AFTER_SECONDS: Record<Unavailable, number> = {
  postgres: 5,
  redis: 5,
  livekit: 5,
  stripe: 5,
  configuration: 3600,
};

/**
 * The one 503 of the API: `{"detail": "..."}` with `Retry-After`. Every answer of a request that
 * could not be served because something it needs is down, too slow, or not configured is this.
 */
export class ServiceUnavailableError extends ApiError {
  constructor(
    readonly dependency: Unavailable,
    message: string,
    options: { cause?: unknown } = {},
  ) {
    super(503, message, { 'Retry-After': String(RETRY_AFTER_SECONDS[dependency]) });
    if (options.cause !== undefined) this.cause = options.cause;
  }
}

export const DATABASE_UNAVAILABLE = 'The database is unavailable or did not answer in time. Try again shortly.';
export const REDIS_UNAVAILABLE = 'The queue service is unavailable or did not answer in time. Try again shortly.';

// Connection exceptions (08), insufficient resources (53, e.g. too many connections), operator
// intervention (57: statement timeout, shutdown, starting up) and a lock wait over lock_timeout.
const OUTAGE_SQLSTATE = /^(08|53|57)|^55P03$/;
// What node-postgres and pg-pool say when a connection cannot be made, breaks, or answers nothing.
const PG_CONNECTION_MESSAGE =
  /timeout exceeded when trying to connect|Connection terminated|Query read timeout|not queryable|Client was closed|Connection refused/i;
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN']);
// What ioredis says when a command cannot be sent (no offline queue) or gets no answer in time.
const REDIS_MESSAGE = /enableOfflineQueue|Command timed out|Connection is closed|Reached the max retries per request/;

function codeOf(error: object): unknown {
  return (error as { code?: unknown }).code;
}

/**
 * The 503 for an error thrown by the database or Redis client, or null for any other error.
 * LiveKit and Stripe errors are turned into 503s by their gateways, where the call is made; Redis
 * errors by the queue registry; the database is reached from everywhere, so its errors are
 * recognised here. A bare socket error can only come from the database: every other client is wrapped.
 */
export function dependencyFailure(error: unknown): ServiceUnavailableError | null {
  if (error instanceof ServiceUnavailableError) return error;
  if (typeof error !== 'object' || error === null) return null;
  const driverError = (error as { driverError?: unknown }).driverError;
  const inner = typeof driverError === 'object' && driverError !== null ? driverError : error;
  const code = codeOf(inner);
  const message = inner instanceof Error ? inner.message : '';
  if (typeof code === 'string' && (OUTAGE_SQLSTATE.test(code) || SOCKET_CODES.has(code))) {
    return new ServiceUnavailableError('postgres', DATABASE_UNAVAILABLE, { cause: inner });
  }
  if (REDIS_MESSAGE.test(message) || (inner instanceof Error && inner.name === 'MaxRetriesPerRequestError')) {
    return new ServiceUnavailableError('redis', REDIS_UNAVAILABLE, { cause: inner });
  }
  if (PG_CONNECTION_MESSAGE.test(message)) return new ServiceUnavailableError('postgres', DATABASE_UNAVAILABLE, { cause: inner });
  return null;
}
