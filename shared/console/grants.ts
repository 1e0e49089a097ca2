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
