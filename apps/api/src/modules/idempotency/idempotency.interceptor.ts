import { Injectable, Logger, StreamableFile, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import type { Response } from 'express';
import { catchError, defer, mergeMap, type Observable } from 'rxjs';
import type { AuthenticatedRequest } from '../../common/auth/actor';
import { errorAnswer } from '../../common/errors/all-exceptions.filter';
import { ApiError } from '../../common/errors/api-error';
import { ReplayedAnswer } from '../../common/errors/replayed-answer';
import { RequestValidationError } from '../../common/errors/validation-error';
import { JSON_CONTENT_TYPE } from '../../common/http/json-reply';
import { everyInputIssue } from '../../common/validation/route-inputs';
import { IDEMPOTENCY_HEADER, keyIssue, requestFingerprint } from './idempotency-key';
import { IdempotencyStore, type StoredAnswer } from './idempotency.store';

/**
 * `Idempotency-Key` on a POST (after authentication, which scopes the key to the organization): the
 * first request runs and its answer is stored before it is sent; a repeat gets that answer again.
 * The answer is what Nest sends: the handler's value as JSON (as the adapter writes it), or, when the
 * handler or its pipes throw, the answer of the exception filter (`errorAnswer`), stored before the
 * error goes on to the filter. A request without the header gets the handler's stream untouched.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  private readonly logger = new Logger(IdempotencyInterceptor.name);

  constructor(private readonly store: IdempotencyStore) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> | Promise<Observable<unknown>> {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const key = request.headers[IDEMPOTENCY_HEADER];
    if (key === undefined || !request.actor) return next.handle();
    return this.claimed(request, context.switchToHttp().getResponse<Response>(), Array.isArray(key) ? key.join(', ') : key, next);
  }

  private async claimed(request: AuthenticatedRequest, response: Response, key: string, next: CallHandler): Promise<Observable<unknown>> {
    const issue = keyIssue(key);
    if (issue) throw new RequestValidationError([issue, ...(everyInputIssue(request) ?? [])], true);
    const organizationId = request.actor!.organizationId;
    const claim = await this.store.claim(organizationId, key, requestFingerprint(request.method, request.path, request.body));
    switch (claim.kind) {
      case 'mismatch':
        throw new ApiError(422, 'This Idempotency-Key was already used with a different method, path or body; use a new key.');
      case 'running':
        throw ApiError.conflict('A request with this Idempotency-Key is still running; retry once it has answered.');
      case 'replay':
        throw new ReplayedAnswer(claim.statusCode, claim.contentType, claim.body);
      case 'run':
        return next.handle().pipe(
          mergeMap(async (value: unknown) => {
            await this.settle(organizationId, key, handlerAnswer(value, response));
            return value;
          }),
          catchError((error: unknown) =>
            defer(async () => {
              const answer = errorAnswer(error, request);
              await this.settle(organizationId, key, {
                statusCode: answer.status,
                contentType: JSON_CONTENT_TYPE,
                body: JSON.stringify(answer.body),
              });
              throw error;
            }),
          ),
        );
    }
  }

  /** Stores the answer (a 5xx, or one whose bytes are unknown, frees the key instead) before it is sent. */
  private async settle(organizationId: string, key: string, answer: StoredAnswer | null): Promise<void> {
    try {
      if (answer && answer.statusCode < 500) await this.store.remember(organizationId, key, answer);
      else await this.store.forget(organizationId, key);
    } catch (error) {
      this.logger.error(`Storing the answer of an idempotent request failed: ${(error as Error).message}`);
    }
  }
}

/** What Nest's adapter sends for a handler's value: no body for none, JSON for an object; null for anything else. */
function handlerAnswer(value: unknown, response: Response): StoredAnswer | null {
  const statusCode = response.statusCode;
  const contentType = response.getHeader('content-type');
  if (value === undefined || value === null)
    return { statusCode, contentType: typeof contentType === 'string' ? contentType : null, body: '' };
  if (typeof value !== 'object' || value instanceof StreamableFile || contentType !== undefined) return null;
  return { statusCode, contentType: JSON_CONTENT_TYPE, body: JSON.stringify(value) };
}
