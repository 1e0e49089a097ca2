import { SCOPES, type Scope } from '../../shared/schemas/api-keys.ts';
import type { Role } from '../../shared/schemas/console.ts';
import { GRANTS } from '../../shared/console/grants.ts';

/**
 * The permission map beside the scope map (CONTRACT.md, "The console"): with a session, a
 * person's role decides route by route, through the same routes keys use. A role holds the
 * scopes below; a viewer holds them for reading only; a route may name its roles outright
 * (visitor policies and the audit log: owner and admin). Keys keep their scope checks unchanged.
 */
const READS: Scope[] = ['incidents:read', 'access_codes:read', 'logs:read', 'analytics:read'];
export const ROLE_SCOPES: Record<Role, readonly Scope[]> = {
  owner: SCOPES,
  admin: SCOPES,
  developer: ['admin', ...READS],
  operator: ['incidents:read', 'incidents:write', 'access_codes:read', 'access_codes:write', 'access_codes:validate', 'logs:read', 'analytics:read'],
  viewer: ['admin', ...READS],
};

/** The grant rule (shared/console/grants.ts): what a person of `role` may put on a key. */
export const grantableBy = (role: Role): readonly Scope[] => GRANTS[role];

/** Whether a person with `role` may call a route of `scope` with `method` (`roles`: the route's own list). */
export function personMay(role: Role, scope: Scope, method: string, roles?: readonly Role[]): boolean {
  if (roles) return roles.includes(role);
  if (!ROLE_SCOPES[role].includes(scope)) return false;
  return role !== 'viewer' || method === 'GET' || method === 'HEAD';
}
