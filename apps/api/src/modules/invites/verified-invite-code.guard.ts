import { createParamDecorator, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { ApiError, INVITE_NOT_FOUND } from '../../common/errors/api-error';
import { InviteCodesService } from './invite-codes.service';

/** A request whose invite code the guard verified: the code's stored hash (a field, not a WeakMap entry per request). */
interface VerifiedRequest extends Request {
  inviteCodeHash?: Buffer;
}

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
    const request = context.switchToHttp().getRequest<VerifiedRequest>();
    const code = request.params.invite_code;
    const hash = typeof code === 'string' ? this.codes.verify(code) : null;
    if (hash === null) throw ApiError.notFound(INVITE_NOT_FOUND);
    request.inviteCodeHash = hash;
    return true;
  }
}

/** The stored hash of the invite code the `VerifiedInviteCodeGuard` verified for this request. */
export const VerifiedInviteHash = createParamDecorator((_data: unknown, context: ExecutionContext): Buffer => {
  const hash = context.switchToHttp().getRequest<VerifiedRequest>().inviteCodeHash;
  if (!hash) throw new Error('@VerifiedInviteHash() needs @UseGuards(VerifiedInviteCodeGuard) on its route');
  return hash;
});
