import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';

/** Who is calling: the user an API key or session acts for, and that user's organization. */
export interface Actor {
  organizationId: string;
  userId: string;
  email: string;
  firstName: string;
  lastName: string;
  imageUrl: string;
  userCreatedAt: Date;
  apiKeyId: string | null;
}

export interface AuthenticatedRequest extends Request {
  actor?: Actor;
}

export const CurrentActor = createParamDecorator((_data: unknown, context: ExecutionContext): Actor => {
  const actor = context.switchToHttp().getRequest<AuthenticatedRequest>().actor;
  if (!actor) throw new Error('CurrentActor used on a route without authentication');
  return actor;
});
