import type { Request } from 'express';
import type { Scope } from '../../shared/schemas/api-keys.ts';
import type { Environment } from '../../shared/schemas/common.ts';
import type { Organization } from '../organizations/organization.ts';

/** Who is calling: set by `authenticate`, read by every route behind it. */
export interface AuthContext {
  organization: Organization;
  keyId: string;
  environment: Environment;
  scopes: ReadonlySet<Scope>;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      auth?: AuthContext;
    }
  }
}

export function authOf(req: Request): AuthContext {
  if (!req.auth) throw new Error('route is not behind authenticate()');
  return req.auth;
}

/** The partition every store query is filtered by: organization AND environment. */
export function tenantOf(req: Request): { organizationId: string; environment: Environment } {
  const auth = authOf(req);
  return { organizationId: auth.organization.organization_id, environment: auth.environment };
}
