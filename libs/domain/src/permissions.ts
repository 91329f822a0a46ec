/**
 * Teams: the roles a member holds in an organization and the permissions each role grants
 * (extensions.md "Teams: members, roles and invitations"). The table is data: the API's guard, its
 * route tests and the members' rules all read it from here.
 */

export const PERMISSIONS = [
  'rooms:read',
  'rooms:write',
  'glossaries:read',
  'glossaries:write',
  'billing:read',
  'billing:write',
  'keys:read',
  'keys:write',
  'webhooks:read',
  'webhooks:write',
  'members:read',
  'members:write',
  'events:read',
  'audit:read',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

export const ROLES = ['owner', 'admin', 'developer', 'billing', 'viewer'] as const;

export type Role = (typeof ROLES)[number];

const EVERYONE: Permission[] = ['rooms:read', 'glossaries:read', 'billing:read', 'members:read', 'events:read'];

/** Which permissions each role holds. */
export const ROLE_PERMISSIONS: Readonly<Record<Role, readonly Permission[]>> = {
  owner: PERMISSIONS,
  admin: PERMISSIONS,
  developer: [...EVERYONE, 'rooms:write', 'glossaries:write', 'keys:read', 'keys:write', 'webhooks:read', 'webhooks:write'],
  billing: [...EVERYONE, 'billing:write'],
  viewer: [...EVERYONE, 'keys:read', 'webhooks:read'],
};

export const isPermission = (value: unknown): value is Permission =>
  typeof value === 'string' && (PERMISSIONS as readonly string[]).includes(value);

export const isRole = (value: unknown): value is Role => typeof value === 'string' && (ROLES as readonly string[]).includes(value);

/**
 * Whether a caller may use `permission`: its role must hold it and, for an API key with scopes, so
 * must the key's scopes (a key can do what both its scopes and its creator's current role allow).
 */
export function allows(role: Role, scopes: readonly Permission[] | null, permission: Permission): boolean {
  return ROLE_PERMISSIONS[role].includes(permission) && (scopes === null || scopes.includes(permission));
}

/**
 * Whether `role` is above `granter`'s: it grants a permission `granter` does not hold, or it is `owner`
 * (only an owner makes an owner). An inviter may not hand out a role above its own.
 */
export function exceeds(role: Role, granter: Role): boolean {
  if (role === 'owner') return granter !== 'owner';
  return ROLE_PERMISSIONS[role].some((permission) => !ROLE_PERMISSIONS[granter].includes(permission));
}
