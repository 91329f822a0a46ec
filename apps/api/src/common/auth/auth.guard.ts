import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiError } from '../errors/api-error';
import type { AuthenticatedRequest } from './actor';
import { ApiKeyAuthenticator } from './api-key-authenticator';
import { looksLikeApiKey } from './api-key-secret';
import { rememberRoute } from '../validation/route-inputs';
import { IS_PUBLIC } from './public.decorator';
import { SessionAuthenticator } from './session-authenticator';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** Bearer authentication on every route not marked @Public(). */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly apiKeys: ApiKeyAuthenticator,
    private readonly sessions: SessionAuthenticator,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    rememberRoute(request, context);
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()])) return true;
    const header = request.headers.authorization;
    if (!header) throw ApiError.unauthorized('Missing bearer credentials: send the header Authorization: Bearer <api key>.');
    const match = BEARER.exec(header);
    if (!match) throw ApiError.unauthorized('Malformed Authorization header: expected "Bearer <credential>".');
    const credential = match[1];
    if (looksLikeApiKey(credential)) {
      request.actor = (await this.apiKeys.authenticate(credential)) ?? undefined;
      if (!request.actor) throw ApiError.unauthorized('Unknown or revoked API key.');
      return true;
    }
    if (this.sessions.enabled) {
      request.actor = (await this.sessions.authenticate(credential)) ?? undefined;
      if (!request.actor) throw ApiError.unauthorized('Invalid or expired session token.');
      return true;
    }
    throw ApiError.unauthorized('Unknown or revoked API key.');
  }
}
