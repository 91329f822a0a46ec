/**
 * Why a session could not be opened: a refused key, an error before the session was configured, no answer.
 * `permanent` when the service itself said no (an HTTP 4xx other than 408 and 429, an `error` event other
 * than a transient one): trying again the same way would be refused again.
 */
export class SessionRefused extends Error {
  constructor(
    message: string,
    readonly permanent = false,
  ) {
    super(message);
  }
}

/**
 * An `error` event before the session is configured that trying again may get past: the service's own
 * failure (`server_error`, the realtime counterpart of an HTTP 5xx) or a rate limit (HTTP 429's). Every
 * other error (an invalid output language, `insufficient_quota`, a bad key) would be refused again.
 */
export function transientOpeningError(error: { type: string; code?: string | null }): boolean {
  return error.type === 'server_error' || error.code === 'server_error' || error.code === 'rate_limit_exceeded';
}
