import { SCOPES, type Scope } from '../schemas/api-keys.ts';
import type { Role } from '../schemas/console.ts';

/**
 * The grant rule, one table for the server (which enforces it) and the console (which offers
 * only what it allows): the scopes a person of each role may put on a key they make or roll.
 * A key never reaches further than the person who made it. A developer makes partner keys with
 * any data scope (a gate's kiosk key, a backend's key) but not `admin`, whose routes include
 * the visitor policies and the audit log the developer role may not use; operators and viewers
 * make no keys. A key (not a person) grants only the scopes it holds itself.
 */
export const GRANTS: Record<Role, readonly Scope[]> = {
  owner: SCOPES,
  admin: SCOPES,
  developer: SCOPES.filter((scope) => scope !== 'admin'),
  operator: [],
  viewer: [],
};

/**
 * A key made beyond its maker's grant: a person made it with scopes their role (then, or now
 * when the role then is unknown) may not grant, and no owner has kept it. Keys made before the
 * grant rule (a developer's `admin` key) stay and are listed for owners to review.
 */
export function madeBeyondGrant(key: { created_by: string | null; created_by_role: string | null; scopes: readonly string[]; reviewed_at: string | null }): boolean {
  if (key.reviewed_at || !key.created_by?.startsWith('per_')) return false;
  const grantable: readonly string[] = GRANTS[key.created_by_role as Role] ?? [];
  return key.scopes.some((scope) => !grantable.includes(scope));
}
