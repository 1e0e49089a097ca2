import type { Request, RequestHandler } from 'express';
import type { Scope } from '../../shared/schemas/api-keys.ts';
import type { Environment } from '../../shared/schemas/common.ts';
import type { Clock } from '../clock.ts';
import type { Db } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import { rowToOrganization } from '../organizations/organization.ts';
import type { RateLimiter } from '../rate-limit/limiter.ts';
import type { AuthContext } from './context.ts';
import { uncachedKeys, type KeyCache } from './key-cache.ts';
import { KEY_PATTERN, hashSecret } from './secrets.ts';
import { findKeyBySecretHash, touchKeyLastUsed } from './store.ts';

export interface GuardOptions {
  /**
   * Requests the plan's budget never refuses (an SOS): still authenticated and scope-checked,
   * counted in the window while it has room, and let through when it is full.
   */
  neverRefuse?: (req: Request) => boolean;
}

export type Guard = (scope: Scope, options?: GuardOptions) => RequestHandler;

const LAST_USED_RESOLUTION_MS = 60_000;
const unauthorized = (message: string) => new ApiError(401, message, { 'WWW-Authenticate': 'Bearer realm="tsaro"' });

/**
 * Builds the guard every partner route starts with, in the contract's order: 401 for a missing,
 * malformed, unknown or revoked key; 402 for plan `none` or a suspended subscription; 403 when
 * the key lacks the route's scope; 429 over the key's rate limit. 403 and 429 answers carry the
 * rate headers too.
 */
export function createGuard(deps: { db: Db; clock: Clock; limiter: RateLimiter; keys?: KeyCache }): Guard {
  const keys = deps.keys ?? uncachedKeys;
  const lastTouched = new Map<string, number>();

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
    const organization = rowToOrganization(found.organization);
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
      scopes: new Set(JSON.parse(found.key.scopes) as Scope[]),
      credential: secret,
    };
  }

  return (scope, options = {}) => async (req, res, next) => {
    const auth = await authenticate(req);
    req.auth = auth;
    const allowed = auth.scopes.has(scope);
    const mode = !allowed ? 'read' : options.neverRefuse?.(req) ? 'count-never-refuse' : 'count';
    await deps.limiter.apply(res, auth.keyId, auth.organization.rate_limit_per_minute, mode);
    if (!allowed) throw new ApiError(403, `This API key lacks the ${scope} scope`);
    next();
  };
}
