import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { AuthenticatedRequest } from '../../common/auth/actor';
import { ApiError } from '../../common/errors/api-error';
import { ReplayedAnswer } from '../../common/errors/replayed-answer';
import { RequestValidationError } from '../../common/errors/validation-error';
import { everyInputIssue } from '../../common/validation/route-inputs';
import { IDEMPOTENCY_HEADER, keyIssue, requestFingerprint } from './idempotency-key';
import { IdempotencyStore, type IdempotentRequest } from './idempotency.store';

/**
 * `Idempotency-Key` on a POST (after authentication, which scopes the key to the organization): the
 * first request claims the key and runs; a repeat gets the first answer again (`ReplayedAnswer`), a
 * concurrent one 409, another body 422. The first answer is stored before it is sent, by the
 * adapter's `reply` (a handler's value) or the exception filter (an error): `IdempotencyStore.answered`.
 * A guard, not an interceptor: a request without the header costs one header lookup, where an
 * interceptor runs every request of the route through Nest's rxjs pipeline (docs/performance.md).
 */
@Injectable()
export class IdempotencyGuard implements CanActivate {
  constructor(private readonly store: IdempotencyStore) {}

  /** Not async: a request without the header (most of them) gets its answer without a promise. */
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest & IdempotentRequest>();
    const header = request.headers[IDEMPOTENCY_HEADER];
    if (header === undefined || !request.actor) return true;
    return this.claim(request, request.actor.organizationId, Array.isArray(header) ? header.join(', ') : header);
  }

  private async claim(request: IdempotentRequest, organizationId: string, key: string): Promise<boolean> {
    const issue = keyIssue(key);
    if (issue) throw new RequestValidationError([issue, ...(everyInputIssue(request) ?? [])], true);
    const claim = await this.store.claim(organizationId, key, requestFingerprint(request.method, request.path, request.body));
    switch (claim.kind) {
      case 'mismatch':
        throw new ApiError(422, 'This Idempotency-Key was already used with a different method, path or body; use a new key.');
      case 'running':
        throw ApiError.conflict('A request with this Idempotency-Key is still running; retry once it has answered.');
      case 'replay':
        throw new ReplayedAnswer(claim.statusCode, claim.contentType, claim.body);
      case 'run':
        request.idempotent = { organizationId, key };
        return true;
    }
  }
}
