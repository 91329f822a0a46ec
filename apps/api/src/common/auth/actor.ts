import type { Permission, Role } from '@app/domain';
import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import type { RouteAccessRule } from './requires.decorator';

/** Who is calling: the user an API key or session acts for, the organization it acts in, and its role there. */
export interface Actor {
  organizationId: string;
  role: Role;
  /** An API key's scopes (null: every permission of its creator's role; a session has none). */
  scopes: Permission[] | null;
  userId: string;
  email: string;
  firstName: string;
  lastName: string;
  imageUrl: string;
  userCreatedAt: Date;
  apiKeyId: string | null;
  /** Whether the identity provider verified `email` (a session's `email_verified` claim; never for an API key). */
  emailVerified: boolean;
  /**
   * The request's id (its `X-Request-Id`) and client address, as the audit log records them: null from
   * the authenticators, filled in by the guard (present from the start, so the object keeps its shape).
   */
  requestId: string | null;
  ip: string | null;
}

export interface AuthenticatedRequest extends Request {
  actor?: Actor;
  /** What the route needs (set with `actor`): the permission an `access.denied` audit event names. */
  accessRule?: RouteAccessRule | null;
}

export const CurrentActor = createParamDecorator((_data: unknown, context: ExecutionContext): Actor => {
  // An HTTP handler's first argument is its request (`switchToHttp()` would make an object and three closures).
  const actor = context.getArgByIndex<AuthenticatedRequest>(0).actor;
  if (!actor) throw new Error('CurrentActor used on a route without authentication');
  return actor;
});
