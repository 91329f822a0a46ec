import { applyDecorators, SetMetadata } from '@nestjs/common';
import type { Permission } from '@app/domain';

export const REQUIRED_PERMISSION = 'auth:permission';
export const SELF_PARAMETER = 'auth:self-parameter';

/** What an authenticated route needs: a permission of the table (libs/domain permissions.ts), or none beyond membership. */
export type RouteAccessRule = Permission | 'member';

/** The permission the caller's role (and, for a scoped key, its scopes) must hold for this route; 403 otherwise. */
export const Requires = (permission: Permission) => SetMetadata(REQUIRED_PERMISSION, permission);

/** A route any member of the acting organization may use, whatever its role (GET /v1/users/me and the like). */
export const AnyMember = () => SetMetadata(REQUIRED_PERMISSION, 'member' satisfies RouteAccessRule);

/** Like @Requires, except that a caller may act on itself without it: the path parameter `parameter` is its own user id. */
export const RequiresUnlessSelf = (permission: Permission, parameter: string) =>
  applyDecorators(SetMetadata(REQUIRED_PERMISSION, permission), SetMetadata(SELF_PARAMETER, parameter));
