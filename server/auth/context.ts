import type { Request } from 'express';
import type { Scope } from '../../shared/schemas/api-keys.ts';
import type { Role } from '../../shared/schemas/console.ts';
import type { Environment } from '../../shared/schemas/common.ts';
import { ApiError } from '../http/errors.ts';
import type { Organization } from '../organizations/organization.ts';

/** Who is calling: set by `authenticate`, read by every route behind it. */
export interface AuthContext {
  organization: Organization;
  keyId: string;
  environment: Environment;
  scopes: ReadonlySet<Scope>;
  /** The sites the key or person is limited to (issue #34); null: every site of the organization. */
  sites: readonly string[] | null;
  /** The API key (or console session token) as presented: what an answer that carries a secret is sealed for (server/idempotency/). Never stored. */
  credential: string;
  /** Scopes this caller may give a key it creates or rolls: a key's own; a key-managing person's, all. */
  grantable: ReadonlySet<Scope>;
  /** Who acts, for the audit log. */
  actor: { type: 'key' | 'person'; id: string; label: string };
  /** A person signed in to the console (absent for a key). */
  person?: { personId: string; role: Role; sessionId: string; /** Every organization they belong to (their own changes are audited in each). */ organizationIds: readonly string[] };
  /**
   * Authenticates the same request again (key or session, plan, suspension): a long answer (the
   * event stream) asks on every heartbeat whether its caller may still read. Rejects as the guard would.
   */
  recheck?: () => Promise<AuthContext>;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      auth?: AuthContext;
    }
  }
}

/** A key may grant (to a key it creates or rolls) only scopes it holds itself: 403 naming the first it lacks. */
export function assertCanGrant(auth: AuthContext, scopes: readonly Scope[]): void {
  const ungrantable = scopes.find((scope) => !auth.grantable.has(scope));
  if (ungrantable) {
    throw new ApiError(403, auth.person ? `Your role (${auth.person.role}) cannot grant the ${ungrantable} scope` : `This API key cannot grant the ${ungrantable} scope it does not hold`);
  }
}

/** A route for callers who reach every site (`everySite`): 403 for a key or person limited to sites. */
export function assertReachesEverySite(auth: AuthContext, options: { everySite?: boolean } | undefined): void {
  if (!options?.everySite || !auth.sites) return;
  throw new ApiError(
    403,
    auth.person
      ? `Your role (${auth.person.role}) is limited to ${siteCount(auth.sites)}; this needs a role for every site`
      : `This API key is limited to ${siteCount(auth.sites)}; this needs a key for every site`,
  );
}
const siteCount = (sites: readonly string[]) => (sites.length === 1 ? 'one site' : `${sites.length} sites`);

export function authOf(req: Request): AuthContext {
  if (!req.auth) throw new Error('route is not behind authenticate()');
  return req.auth;
}

/** The partition every store query is filtered by: organization AND environment. */
export function tenantOf(req: Request): { organizationId: string; environment: Environment; sites: readonly string[] | null } {
  const auth = authOf(req);
  return { organizationId: auth.organization.organization_id, environment: auth.environment, sites: auth.sites };
}

export { parseSiteIds } from '../db/tenant.ts';
