import type { Request } from 'express';
import type { Scope } from '../../shared/schemas/api-keys.ts';
import type { Environment } from '../../shared/schemas/common.ts';
import type { Clock } from '../clock.ts';
import type { Db } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import { rowToOrganization } from '../organizations/organization.ts';
import type { RateLimiter } from '../rate-limit/limiter.ts';
import { assertReachesEverySite, parseSiteIds, type AuthContext } from './context.ts';
import { uncachedKeys, type KeyCache } from './key-cache.ts';
import { KEY_PATTERN, hashSecret } from './secrets.ts';
import { personAuthContext } from '../people/middleware.ts';
import { hasSessionCookie, signedInSession, type SessionSettings } from '../people/session.ts';
import { personMay } from './permissions.ts';
import { findKeyBySecretHash, touchKeyLastUsed, type KeyWithOrganization } from './store.ts';

import type { Guard } from '../http/define-route.ts';

const LAST_USED_RESOLUTION_MS = 60_000;
const unauthorized = (message: string) => new ApiError(401, message, { 'WWW-Authenticate': 'Bearer realm="tsaro"' });

/**
 * Builds the guard every partner route starts with, in the contract's order: 401 for a missing,
 * malformed, unknown or revoked key; 402 for plan `none` or a suspended subscription; 403 when
 * the key lacks the route's scope; 429 over the key's rate limit. 403 and 429 answers carry the
 * rate headers too.
 */
/** A person's requests per minute, whatever the organization's plan (CONTRACT.md). */
export const PERSON_REQUESTS_PER_MINUTE = 600;

export interface GuardDeps {
  db: Db;
  clock: Clock;
  limiter: RateLimiter;
  keys?: KeyCache;
  /** The console's sessions: a request without a bearer key but with the session cookie is a person's. */
  sessions?: { settings: SessionSettings };
}

type KeyDerived = Pick<AuthContext, 'organization' | 'scopes' | 'sites' | 'actor'>;

export function createGuard(deps: GuardDeps): Guard {
  const keys = deps.keys ?? uncachedKeys;
  const lastTouched = new Map<string, number>();
  // What a key's row means (its organization, scopes, sites), worked out once per row the key
  // cache holds rather than per request: a cached row is the same object until it is dropped.
  const derived = new WeakMap<KeyWithOrganization, KeyDerived>();
  const derivedOf = (found: KeyWithOrganization): KeyDerived => {
    let known = derived.get(found);
    if (!known) {
      known = {
        organization: rowToOrganization(found.organization),
        scopes: new Set(JSON.parse(found.key.scopes) as Scope[]),
        sites: parseSiteIds(found.key.site_ids),
        actor: { type: 'key', id: found.key.key_id, label: found.key.name },
      };
      derived.set(found, known);
    }
    return known;
  };

  async function authenticate(req: Request): Promise<AuthContext> {
    const header = req.get('authorization');
    if (!header) throw unauthorized('Missing API key: send the header Authorization: Bearer <API_KEY>');
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
    if (!match) throw unauthorized('Malformed Authorization header: expected Bearer <API_KEY>');
    const secret = match[1]!;
    if (!KEY_PATTERN.test(secret)) throw unauthorized('Malformed API key: expected svc_live_... or svc_test_...');
    const secretHash = hashSecret(secret);
    const found = await keys.lookup(secretHash, () => findKeyBySecretHash(deps.db, secretHash));
    if (!found) throw unauthorized('Invalid API key');
    if (found.key.revoked_at) throw unauthorized('API key has been revoked');
    const nowMs = deps.clock.now().getTime();
    if (found.key.expires_at && Date.parse(found.key.expires_at) <= nowMs) throw unauthorized('API key has expired (it was rolled)');
    const { organization, scopes, sites, actor } = derivedOf(found);
    if (organization.plan === 'none') throw new ApiError(402, 'Your plan does not include API access');
    if (organization.subscription_status === 'suspended') throw new ApiError(402, 'Your subscription is suspended');

    // last_used_at is written at most once a minute per key and host: a write per request would
    // make every read a write.
    if (nowMs - (lastTouched.get(found.key.key_id) ?? 0) >= LAST_USED_RESOLUTION_MS) {
      lastTouched.set(found.key.key_id, nowMs);
      await touchKeyLastUsed(deps.db, found.key.key_id, new Date(nowMs).toISOString());
    }
    return {
      organization,
      keyId: found.key.key_id,
      environment: found.key.environment as Environment,
      scopes,
      sites,
      credential: secret,
      grantable: scopes,
      actor,
    };
  }

  /** A person in the console: a live, fully signed-in session; the environment the console switched to. */
  async function authenticatePerson(req: Request, settings: SessionSettings, activity = true): Promise<AuthContext> {
    const live = await signedInSession(req, { db: deps.db, clock: deps.clock, settings }, activity);
    const environment = req.get('tsaro-environment') ?? 'live';
    if (environment !== 'live' && environment !== 'sandbox') throw new ApiError(400, 'Tsaro-Environment must be live or sandbox');
    const auth = personAuthContext(live, environment);
    if (auth.organization.plan === 'none') throw new ApiError(402, 'Your plan does not include API access');
    if (auth.organization.subscription_status === 'suspended') throw new ApiError(402, 'Your subscription is suspended');
    return auth;
  }

  /**
   * The same request checked again later (a stream's heartbeat): not the person's activity.
   * Made here, not inside the middleware below: a closure made there would share the
   * middleware's whole scope, and V8 then kept every request's objects alive past a young
   * collection (docs/benchmarks.md, "A closure that kept every request").
   */
  const recheckOf =
    (req: Request, personSettings: SessionSettings | undefined): (() => Promise<AuthContext>) =>
    () =>
      personSettings ? authenticatePerson(req, personSettings, false) : authenticate(req);

  return (scope, options = {}) => async (req, res, next) => {
    const sessions = deps.sessions;
    const byPerson = sessions !== undefined && req.get('authorization') === undefined && hasSessionCookie(req);
    const auth = { ...(byPerson ? await authenticatePerson(req, sessions.settings) : await authenticate(req)) };
    auth.recheck = recheckOf(req, byPerson ? sessions.settings : undefined);
    req.auth = auth;
    const may = (needed: Scope) => (auth.person ? personMay(auth.person.role, needed, req.method, options.roles) : auth.scopes.has(needed));
    const allowed = may(scope) || (options.anyScopeOf ?? []).some(may);
    const mode = !allowed ? 'read' : options.neverRefuse?.(req) ? 'count-never-refuse' : 'count';
    const limit = auth.person ? PERSON_REQUESTS_PER_MINUTE : auth.organization.rate_limit_per_minute;
    await deps.limiter.apply(res, auth.keyId, limit, mode);
    if (!allowed) {
      const anyOf = options.anyScopeOf && [scope, ...options.anyScopeOf].join(', ');
      if (auth.person) throw new ApiError(403, `Your role (${auth.person.role}) may not do this (it needs ${anyOf ? `one of ${anyOf}` : scope})`);
      throw new ApiError(403, anyOf ? `This API key holds none of the scopes ${anyOf}` : `This API key lacks the ${scope} scope`);
    }
    assertReachesEverySite(auth, options);
    next();
  };
}
