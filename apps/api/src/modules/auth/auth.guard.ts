import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
import { ApiError } from '../../common/errors/api-error';
import { NOT_RATE_LIMITED } from '../../common/rate-limiting/not-rate-limited.decorator';
import { RateLimitsService } from '../../common/rate-limiting/rate-limits.service';
import type { Actor, AuthenticatedRequest } from '../../common/auth/actor';
import { ApiKeyAuthenticator } from './api-key.authenticator';
import { looksLikeApiKey } from '../../common/auth/api-key-secret';
import { rememberRoute, routeRefOf, type RouteRef } from '../../common/validation/route-inputs';
import { IS_PUBLIC } from '../../common/auth/public.decorator';
import { SessionAuthenticator } from './session.authenticator';
import { StreamTicketAuthenticator } from './stream-ticket.authenticator';
import { TAKES_STREAM_TICKET } from '../../common/auth/stream-ticket.decorator';
import { allows } from '@app/domain';
import { REQUIRED_PERMISSION, SELF_PARAMETER, type RouteAccessRule } from '../../common/auth/requires.decorator';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** How a route is guarded; decorators never change after start, so it is read once per handler. */
interface RouteAccess {
  isPublic: boolean;
  rateLimited: boolean;
  /** What an authenticated caller needs (null: the route declares nothing, and is refused). */
  rule: RouteAccessRule | null;
  /** The path parameter naming a user who may act on themselves without `rule` (RequiresUnlessSelf). */
  selfParameter: string | null;
  /** The route takes a stream ticket (`?ticket=`) when no Authorization header is sent. */
  takesTicket: boolean;
  /** The route, for a 422 that names every violated input (`rememberRoute`). */
  route: RouteRef;
}

/** The header a session names the organization it acts in with. */
const ORGANIZATION_HEADER = 'organization-id';

const setHeaders = (response: Response, headers: Record<string, string>) => {
  for (const name in headers) response.setHeader(name, headers[name]);
};

/**
 * Bearer authentication on every route not marked @Public(), the permission the route declares
 * (@Requires, @AnyMember) checked against the caller's role and a key's scopes, and the request budgets:
 * per credential once authenticated, per client address on public routes and for failed
 * authentications (which never refuse a valid credential).
 */
@Injectable()
export class AuthGuard implements CanActivate {
  private readonly access = new WeakMap<object, RouteAccess>();

  constructor(
    private readonly reflector: Reflector,
    private readonly apiKeys: ApiKeyAuthenticator,
    private readonly sessions: SessionAuthenticator,
    private readonly limits: RateLimitsService,
    private readonly tickets: StreamTicketAuthenticator,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    // Once: each `switchToHttp()` makes an object and three closures.
    const http = context.switchToHttp();
    const request = http.getRequest<AuthenticatedRequest>();
    const response = http.getResponse<Response>();
    const access = this.accessOf(context);
    rememberRoute(request, access.route);
    // Express computes `ip` on every read (trust proxy): read it once.
    const ip = request.ip ?? null;
    const address = ip ?? 'unknown';
    if (access.isPublic) {
      if (access.rateLimited) setHeaders(response, await this.limits.spend('address', address));
      return true;
    }
    // The credential is verified first: a valid one is limited only by its own budget, whatever others
    // sent from the same address (a NAT, a proxy); only a failure is counted against the address.
    let actor: Actor;
    const organizationHeader = request.headers[ORGANIZATION_HEADER];
    const organizationId = typeof organizationHeader === 'string' ? organizationHeader.trim() : null;
    try {
      const ticket = access.takesTicket && request.headers.authorization === undefined ? request.query?.ticket : undefined;
      actor =
        typeof ticket === 'string'
          ? await this.tickets.authenticate(ticket)
          : await this.authenticate(request.headers.authorization, organizationId);
    } catch (error) {
      throw error instanceof ApiError && error.status === 401 ? await this.limits.failedAuthentication(address, error) : error;
    }
    // The authenticator's object is this request's own: completed in place, not copied.
    actor.requestId = request.id ?? null;
    actor.ip = ip;
    request.actor = actor;
    // A 403 from here on is recorded in the audit log (by the exception filter) with what the route needs.
    request.accessRule = access.rule;
    const budget = actor.apiKeyId !== null ? `key:${actor.apiKeyId}` : `user:${actor.userId}`;
    setHeaders(response, await this.limits.spend('credential', budget));
    // An API key acts in its own organization only.
    if (actor.apiKeyId !== null && organizationId !== null && organizationId.toLowerCase() !== actor.organizationId) {
      throw ApiError.notFound(`Organization ${organizationId} not found: an API key acts in its own organization only.`);
    }
    if (access.selfParameter !== null && request.params[access.selfParameter] === actor.userId) return true;
    this.authorize(actor, access.rule);
    return true;
  }

  private authorize(actor: Actor, rule: RouteAccessRule | null): void {
    if (rule === 'member') return;
    if (rule === null) throw ApiError.forbidden('This route declares no permission, so nobody may use it.');
    if (allows(actor.role, actor.scopes, rule)) return;
    const by =
      actor.scopes !== null && !actor.scopes.includes(rule)
        ? "this API key's scopes do not include it"
        : `the role ${actor.role} does not hold it`;
    throw ApiError.forbidden(`This needs the permission ${rule}; ${by}.`);
  }

  private accessOf(context: ExecutionContext): RouteAccess {
    const handler = context.getHandler();
    let access = this.access.get(handler);
    if (!access) {
      const targets = [handler, context.getClass()];
      access = {
        isPublic: this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets) === true,
        rateLimited: this.reflector.getAllAndOverride<boolean>(NOT_RATE_LIMITED, targets) !== true,
        rule: this.reflector.getAllAndOverride<RouteAccessRule | undefined>(REQUIRED_PERMISSION, targets) ?? null,
        selfParameter: this.reflector.getAllAndOverride<string | undefined>(SELF_PARAMETER, targets) ?? null,
        takesTicket: this.reflector.getAllAndOverride<boolean>(TAKES_STREAM_TICKET, targets) === true,
        route: routeRefOf(context),
      };
      this.access.set(handler, access);
    }
    return access;
  }

  private async authenticate(header: string | undefined, organizationId: string | null): Promise<Actor> {
    if (!header) throw ApiError.unauthorized('Missing bearer credentials: send the header Authorization: Bearer <api key>.');
    const match = BEARER.exec(header);
    if (!match) throw ApiError.unauthorized('Malformed Authorization header: expected "Bearer <credential>".');
    const credential = match[1];
    if (looksLikeApiKey(credential)) {
      const actor = await this.apiKeys.authenticate(credential);
      if (!actor) throw ApiError.unauthorized('Unknown or revoked API key.');
      if ('expiredAt' in actor) throw ApiError.unauthorized(`This API key expired at ${actor.expiredAt.toISOString()}.`);
      return actor;
    }
    if (this.sessions.enabled) {
      const actor = await this.sessions.authenticate(credential, organizationId);
      if (!actor) throw ApiError.unauthorized('Invalid or expired session token.');
      return actor;
    }
    throw ApiError.unauthorized('Unknown or revoked API key.');
  }
}
