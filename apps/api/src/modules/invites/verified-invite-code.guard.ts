import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { ApiError, INVITE_NOT_FOUND } from '../../common/errors/api-error';
import { InviteCodes } from './invite-codes';

/**
 * A code whose signature does not verify is answered 404 before anything else of the request is
 * looked at (guards run before the body is validated): forged codes cost one HMAC, never a database
 * query or the validation of a body.
 */
@Injectable()
export class VerifiedInviteCode implements CanActivate {
  constructor(private readonly codes: InviteCodes) {}

  canActivate(context: ExecutionContext): boolean {
    const code = context.switchToHttp().getRequest<Request>().params.invite_code;
    if (typeof code !== 'string' || this.codes.verify(code) === null) throw ApiError.notFound(INVITE_NOT_FOUND);
    return true;
  }
}
