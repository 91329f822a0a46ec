import { Injectable, Logger, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { Response } from 'express';
import type { AuthenticatedRequest } from '../../common/auth/actor';
import { ApiError } from '../../common/errors/api-error';
import { ReplayedAnswer } from '../../common/errors/replayed-answer';
import { RequestValidationError } from '../../common/errors/validation-error';
import { everyInputIssue } from '../../common/validation/route-inputs';
import { IDEMPOTENCY_HEADER, keyIssue, requestFingerprint } from './idempotency-key';
import { IdempotencyStore } from './idempotency.store';

/**
 * `Idempotency-Key` on a POST (after authentication, which scopes the key to the organization): the
 * first request runs and its answer is stored before it is sent; a repeat gets that answer again.
 * A guard rather than an interceptor: it needs nothing of the handler's result (the answer is taken
 * from the response), and a route with an interceptor runs every request through an rxjs pipeline,
 * which a request without the header would pay for nothing.
 */
@Injectable()
export class IdempotencyGuard implements CanActivate {
  private readonly logger = new Logger(IdempotencyGuard.name);

  constructor(private readonly store: IdempotencyStore) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const key = request.headers[IDEMPOTENCY_HEADER];
    if (key === undefined || !request.actor) return true;
    const value = Array.isArray(key) ? key.join(', ') : key;
    const issue = keyIssue(value);
    if (issue) throw new RequestValidationError([issue, ...(everyInputIssue(request) ?? [])], true);
    const organizationId = request.actor.organizationId;
    const claim = await this.store.claim(organizationId, value, requestFingerprint(request.method, request.path, request.body));
    switch (claim.kind) {
      case 'mismatch':
        throw new ApiError(422, 'This Idempotency-Key was already used with a different method, path or body; use a new key.');
      case 'running':
        throw ApiError.conflict('A request with this Idempotency-Key is still running; retry once it has answered.');
      case 'replay':
        throw new ReplayedAnswer(claim.statusCode, claim.contentType, claim.body);
      case 'run':
        this.rememberAnswer(context.switchToHttp().getResponse<Response>(), organizationId, value);
        return true;
    }
  }

  /** Stores the answer before its last byte leaves, so a retry that follows it always finds it. */
  private rememberAnswer(response: Response, organizationId: string, key: string): void {
    const chunks: Buffer[] = [];
    const write = response.write.bind(response) as (...args: unknown[]) => boolean;
    const end = response.end.bind(response) as (...args: unknown[]) => Response;
    const collect = (chunk: unknown, encoding: unknown) => {
      if (typeof chunk === 'string') chunks.push(Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8'));
      else if (chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk));
    };
    response.write = ((chunk: unknown, ...rest: unknown[]) => {
      collect(chunk, rest[0]);
      return write(chunk, ...rest);
    }) as Response['write'];
    response.end = ((...args: unknown[]) => {
      if (typeof args[0] !== 'function') collect(args[0], args[1]);
      const status = response.statusCode;
      const settled =
        status >= 500
          ? this.store.forget(organizationId, key)
          : this.store.remember(organizationId, key, {
              statusCode: status,
              contentType: (response.getHeader('content-type') as string | undefined) ?? null,
              body: Buffer.concat(chunks).toString('utf8'),
            });
      settled
        .catch((error: Error) => this.logger.error(`Storing the answer of an idempotent request failed: ${error.message}`))
        .finally(() => end(...args));
      return response;
    }) as Response['end'];
  }
}
