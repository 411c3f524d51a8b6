/**
 * Roles from a verified token (docs/operations.md, "Claims and roles"): the string claim (`JWT_ROLES_CLAIM`) and the
 * array claim (`JWT_ROLES_ARRAY_CLAIM`) are both read and the highest recognised role wins. A claim of the wrong type
 * counts as no role, so a malformed token is never widened.
 */
import type { AuthConfig } from '../config/broker-config.js'
import type { Role } from './identity.js'
import type { RouteClass } from './route-classes.js'

/** The claims and role names that decide a token's role. */
export type RoleConfig = Pick<AuthConfig, 'rolesClaim' | 'rolesArrayClaim' | 'roles'>

const HIGHEST_FIRST: readonly Role[] = ['admin', 'read-write', 'read-only']

/** The highest recognised role named by the claims, or null. */
export function roleOf(claims: Readonly<Record<string, unknown>>, config: RoleConfig): Role | null {
  const named = new Set<string>()
  const single = claims[config.rolesClaim]
  if (typeof single === 'string') named.add(single)
  const several = claims[config.rolesArrayClaim]
  if (Array.isArray(several)) for (const entry of several) if (typeof entry === 'string') named.add(entry)
  const nameOf: Record<Role, string> = {
    admin: config.roles.admin,
    'read-write': config.roles.readWrite,
    'read-only': config.roles.readOnly,
  }
  return HIGHEST_FIRST.find((role) => named.has(nameOf[role])) ?? null
}

/** The highest route class a role may call; no role reaches public routes only. */
export function classOfRole(role: Role | null): RouteClass {
  switch (role) {
    case 'admin':
      return 'admin'
    case 'read-write':
      return 'write'
    case 'read-only':
      return 'read'
    case null:
      return 'public'
  }
}
