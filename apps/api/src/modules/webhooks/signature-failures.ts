import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { ApiError } from '../../common/errors/api-error';
import { RateLimits } from '../../common/rate-limiting/rate-limits';

/**
 * The webhook routes are not rate limited (LiveKit and Stripe deliver bursts from a few addresses),
 * but a body whose signature does not verify counts against its address's failed-authentication
 * budget, as a bad API key does: an address that keeps posting unsigned bodies is refused (429)
 * before its next body is verified.
 */
@Injectable()
export class SignatureFailures {
  constructor(private readonly limits: RateLimits) {}

  /** Throws 429 when the address is over its failed-authentication budget. */
  refuseBlocked(request: Request): void {
    this.limits.refuseBlockedAddress(request.ip ?? 'unknown');
  }

  /** Counts the failure; the error to answer with (its budget's headers added), or 429 once the budget is spent. */
  async counted(request: Request, error: ApiError): Promise<ApiError> {
    const headers = await this.limits.recordFailedAuthentication(request.ip ?? 'unknown');
    return new ApiError(error.status, error.message, { ...error.headers, ...headers });
  }
}
