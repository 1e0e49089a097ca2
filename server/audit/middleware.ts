import type { RequestHandler } from 'express';
import type { Clock } from '../clock.ts';
import type { Db } from '../db/schema.ts';
import type { RouteDefinition } from '../http/define-route.ts';
import { recordAudit } from './service.ts';

/** The first `*_id` of the answer's first object (`{api_key: {key_id}}` → the key's id): what a create made. */
function createdId(body: unknown): string | null {
  if (!body || typeof body !== 'object') return null;
  for (const value of Object.values(body)) {
    if (value && typeof value === 'object') {
      for (const [name, id] of Object.entries(value)) if (name.endsWith('_id') && typeof id === 'string') return id;
    }
  }
  return null;
}

/**
 * Every successful change made with a key or by a person leaves an audit entry: written just
 * before the answer, in the request's transaction where it has one (an Idempotency-Key), so the
 * entry commits with the change. The action is the route's operationId; the resource is the
 * path's id, or the id of what the answer made.
 */
export function auditChanges(deps: { db: Db; clock: Clock }) {
  return (route: RouteDefinition<never>): RequestHandler =>
    (req, res, next) => {
      const send = res.json.bind(res);
      res.json = (body: unknown) => {
        const auth = req.auth;
        if (res.statusCode >= 400 || !auth) return send(body);
        const params = Object.values(req.params ?? {}).filter((v): v is string => typeof v === 'string');
        recordAudit(req.tx ?? deps.db, deps.clock, {
          organizationId: auth.organization.organization_id,
          environment: auth.person && route.access === 'person' ? null : auth.environment,
          actor: auth.actor,
          action: route.operationId,
          resourceType: route.path.split('/')[1] ?? null,
          resourceId: params[0] ?? createdId(body),
          ip: req.ip ?? null,
        }).then(
          () => send(body),
          (err: unknown) => next(err),
        );
        return res;
      };
      next();
    };
}
