import { allows, exceeds, PERMISSIONS, ROLE_PERMISSIONS, ROLES, type Permission, type Role } from './permissions';

/** The table of extensions.md, written out as it reads there: role → the permissions it holds. */
const TABLE: Record<Permission, Role[]> = {
  'rooms:read': ['owner', 'admin', 'developer', 'billing', 'viewer'],
  'rooms:write': ['owner', 'admin', 'developer'],
  'glossaries:read': ['owner', 'admin', 'developer', 'billing', 'viewer'],
  'glossaries:write': ['owner', 'admin', 'developer'],
  'billing:read': ['owner', 'admin', 'developer', 'billing', 'viewer'],
  'billing:write': ['owner', 'admin', 'billing'],
  'keys:read': ['owner', 'admin', 'developer', 'viewer'],
  'keys:write': ['owner', 'admin', 'developer'],
  'webhooks:read': ['owner', 'admin', 'developer', 'viewer'],
  'webhooks:write': ['owner', 'admin', 'developer'],
  'members:read': ['owner', 'admin', 'developer', 'billing', 'viewer'],
  'members:write': ['owner', 'admin'],
  'events:read': ['owner', 'admin', 'developer', 'billing', 'viewer'],
  'audit:read': ['owner', 'admin'],
};

describe('roles and permissions', () => {
  it.each(PERMISSIONS.flatMap((permission) => ROLES.map((role) => [permission, role] as const)))(
    '%s held by %s exactly as the contract table says',
    (permission, role) => {
      expect(ROLE_PERMISSIONS[role].includes(permission)).toBe(TABLE[permission].includes(role));
      expect(allows(role, null, permission)).toBe(TABLE[permission].includes(role));
    },
  );

  it('lets a scoped key do only what both its scopes and its creator’s role allow', () => {
    expect(allows('owner', ['rooms:write'], 'rooms:write')).toBe(true);
    expect(allows('owner', ['rooms:write'], 'rooms:read')).toBe(false);
    // A viewer's key scoped to rooms:write still cannot write rooms.
    expect(allows('viewer', ['rooms:write'], 'rooms:write')).toBe(false);
  });

  it('says which roles grant more than another holds', () => {
    expect(exceeds('owner', 'admin')).toBe(true);
    expect(exceeds('owner', 'owner')).toBe(false);
    expect(exceeds('admin', 'owner')).toBe(false);
    expect(exceeds('admin', 'developer')).toBe(true);
    expect(exceeds('billing', 'developer')).toBe(true);
    expect(exceeds('viewer', 'developer')).toBe(false);
    expect(exceeds('developer', 'developer')).toBe(false);
  });
});
