import { createParamDecorator, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { ApiError, INVITE_NOT_FOUND } from '../../common/errors/api-error';
import { InviteCodesService } from './invite-codes.service';

/** The stored hash of the request's verified invite code, set by the guard. */
const verifiedHashes = new WeakMap<Request, Buffer>();

/**
 * A code whose signature does not verify is answered 404 before anything else of the request is
 * looked at (guards run before the body is validated): forged codes cost one HMAC, never a database
 * query or the validation of a body. A verified code is not verified again: the route takes its
 * stored hash through `@VerifiedInviteHash()`.
 */
@Injectable()
export class VerifiedInviteCodeGuard implements CanActivate {
  constructor(private readonly codes: InviteCodesService) {}

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<Request>();
    const code = request.params.invite_code;
    const hash = typeof code === 'string' ? this.codes.verify(code) : null;
    if (hash === null) throw ApiError.notFound(INVITE_NOT_FOUND);
    verifiedHashes.set(request, hash);
    return true;
  }
}

/** The stored hash of the invite code the `VerifiedInviteCodeGuard` verified for this request. */
export const VerifiedInviteHash = createParamDecorator((_data: unknown, context: ExecutionContext): Buffer => {
  const hash = verifiedHashes.get(context.switchToHttp().getRequest<Request>());
  if (!hash) throw new Error('@VerifiedInviteHash() needs @UseGuards(VerifiedInviteCodeGuard) on its route');
  return hash;
});
