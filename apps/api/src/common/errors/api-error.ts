/** An error the API answers with `{"detail": message}` and the given status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  static notFound(message = 'Not found.'): ApiError {
    return new ApiError(404, message);
  }

  static unauthorized(message: string): ApiError {
    return new ApiError(401, message, { 'WWW-Authenticate': 'Bearer' });
  }

  static forbidden(message: string): ApiError {
    return new ApiError(403, message);
  }

  static gone(message: string): ApiError {
    return new ApiError(410, message);
  }

  static conflict(message: string): ApiError {
    return new ApiError(409, message);
  }
}

/** Unknown, malformed, revoked and forged invite codes all answer exactly this. */
export const INVITE_NOT_FOUND = 'Invite link not found.';
