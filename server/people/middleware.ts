import { personActor } from './audit-person.ts';
import type { RequestHandler } from 'express';
import type { Role } from '../../shared/schemas/console.ts';
import type { Clock } from '../clock.ts';
import type { Db } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import { rowToOrganization } from '../organizations/organization.ts';
import { ROLE_SCOPES, grantableBy } from '../auth/permissions.ts';
import { signedInSession, type LiveSession, type SessionSettings } from './session.ts';
import { assertReachesEverySite, parseSiteIds, type AuthContext } from '../auth/context.ts';
import type { GuardOptions } from '../http/define-route.ts';
import type { Environment } from '../../shared/schemas/common.ts';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The console session of a `person` route. */
      consoleSession?: LiveSession;
    }
  }
}

/** Who is calling, for a signed-in person: their role's scopes, what they may grant, and the actor the audit log names. */
export function personAuthContext(live: LiveSession, environment: Environment): AuthContext {
  const role = live.person.role as Role;
  return {
    organization: rowToOrganization(live.organization),
    keyId: live.person.person_id,
    environment,
    scopes: new Set(ROLE_SCOPES[role]),
    sites: parseSiteIds(live.person.site_ids),
    credential: live.token,
    grantable: new Set(grantableBy(role)),
    actor: personActor(live.person),
    person: { personId: live.person.person_id, role, sessionId: live.session.session_id, organizationIds: live.memberships.map((membership) => membership.organization_id) },
  };
}

/**
 * A `person` route's access: a signed-in console person (fully, second factor done), the
 * Origin and CSRF rules for a change, and the route's roles. Sets `req.auth` as the guard does,
 * so the audit log names the person.
 */
export function personAccess(deps: { db: Db; clock: Clock; settings: SessionSettings }) {
  return (options: GuardOptions | undefined): RequestHandler =>
    async (req, _res, next) => {
      const live = await signedInSession(req, deps);
      const role = live.person.role as Role;
      if (options?.roles && !options.roles.includes(role)) throw new ApiError(403, `Your role (${role}) may not do this`);
      req.consoleSession = live;
      req.auth = personAuthContext(live, 'live');
      assertReachesEverySite(req.auth, options);
      next();
    };
}

export function sessionOf(req: { consoleSession?: LiveSession }): LiveSession {
  if (!req.consoleSession) throw new Error('route is not behind personAccess()');
  return req.consoleSession;
}
