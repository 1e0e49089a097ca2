import type { Request, RequestHandler } from 'express';
import type { Clock } from '../clock.ts';
import type { Logger } from 'pino';
import type { Db, Executor } from '../db/schema.ts';
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

/** A request's audit entry, written inside the change's own transaction by the service that makes it. */
export interface AuditRecorder {
  /** Writes the entry in `trx` (a deferred write: on PostgreSQL it rides with the COMMIT); the answer then writes none. */
  record(trx: Executor, resourceId: string): Promise<void>;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** Set by `auditChanges` on every audited route. */
      audit?: AuditRecorder;
    }
  }
}

/** The hook a service's transaction calls to write the request's audit entry with the change (none when the route is not audited). */
export const auditHookOf =
  (req: Request) =>
  (trx: Executor, resourceId: string): Promise<void> =>
    req.audit?.record(trx, resourceId) ?? Promise.resolve();

/**
 * Every successful change made with a key or by a person leaves an audit entry. The action is
 * the route's operationId; the resource is the path's id, or the id of what the answer made.
 * When the request has a transaction (an Idempotency-Key) the entry is written in it, just
 * before the answer, and commits with the change. A person's change without one is written and
 * made durable before the answer. A key's change without one (an SOS, a scan: the hot path) is
 * recorded just after its answer, so it costs the request no commit of its own; a host dying in
 * that instant can lose the entry, never the change (send an Idempotency-Key to tie them). A
 * service that takes the request's `audit` hook (an SOS: `auditHookOf`) writes the entry inside
 * its own transaction instead, as a deferred write that rides with its COMMIT: no commit, round
 * trip or loss of its own.
 */
export function auditChanges(deps: { db: Db; clock: Clock; logger: Logger }) {
  return (route: RouteDefinition<never>): RequestHandler =>
    (req, res, next) => {
      const send = res.json.bind(res);
      const params = () => Object.values(req.params ?? {}).filter((v): v is string => typeof v === 'string');
      const entry = async (db: Executor, resourceId: string | null) => {
        const auth = req.auth!;
        // A person's own change is theirs in every organization they belong to (issue #34).
        const organizations = route.personal && auth.person ? auth.person.organizationIds : [auth.organization.organization_id];
        for (const organizationId of organizations) {
          await recordAudit(db, deps.clock, {
            organizationId,
            environment: route.access === 'person' ? null : auth.environment,
            actor: auth.actor,
            action: route.operationId,
            resourceType: route.path.split('/')[1] ?? null,
            resourceId,
            ip: req.ip ?? null,
          });
        }
      };
      let recorded = false;
      req.audit = {
        async record(trx, resourceId) {
          if (!req.auth) return;
          await entry(trx, params()[0] ?? resourceId);
          recorded = true;
        },
      };
      res.json = (body: unknown) => {
        const auth = req.auth;
        if (res.statusCode >= 400 || !auth || recorded) return send(body);
        const record = (db: Executor) => entry(db, params()[0] ?? createdId(body));
        if (!req.tx && auth.actor.type === 'key') {
          send(body);
          record(deps.db).catch((err: unknown) => deps.logger.error({ err, action: route.operationId }, 'audit entry could not be written'));
          return res;
        }
        record(req.tx ?? deps.db).then(
          () => send(body),
          (err: unknown) => next(err),
        );
        return res;
      };
      next();
    };
}
