import type { NextFunction, Request, RequestHandler, Response } from 'express';
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
  record(trx: Executor, resourceId: string | null): Promise<void>;
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
  (trx: Executor, resourceId: string | null): Promise<void> =>
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
export function auditChanges(deps: AuditDeps) {
  return (route: RouteDefinition<never>): RequestHandler =>
    (req, res, next) => {
      const audit = new RequestAudit(deps, route, req, res, next);
      req.audit = audit;
      res.json = answerAfterAudit(audit);
      next();
    };
}

type AuditDeps = { db: Db; clock: Clock; logger: Logger };

/**
 * Made outside the middleware, with only the request's audit in its scope: a closure made inside
 * it, installed as `res.json`, kept each request's objects alive through V8's young collections
 * (every SOS promoted, 20-30 ms young collections: docs/benchmarks.md).
 */
const answerAfterAudit = (audit: RequestAudit) => (body: unknown) => audit.answer(body);

/** One audited request: its entry, written by the service's transaction or around the answer. */
class RequestAudit implements AuditRecorder {
  private recorded = false;
  private readonly send: (body: unknown) => Response;

  constructor(
    private readonly deps: AuditDeps,
    private readonly route: RouteDefinition<never>,
    private readonly req: Request,
    private readonly res: Response,
    private readonly next: NextFunction,
  ) {
    this.send = res.json.bind(res);
  }

  async record(trx: Executor, resourceId: string | null): Promise<void> {
    if (!this.req.auth) return;
    await this.entry(trx, this.pathId() ?? resourceId);
    this.recorded = true;
  }

  answer(body: unknown): Response {
    const { req, res, deps, route } = this;
    const auth = req.auth;
    if (res.statusCode >= 400 || !auth || this.recorded) return this.send(body);
    const resourceId = this.pathId() ?? createdId(body);
    if (!req.tx && auth.actor.type === 'key') {
      this.send(body);
      this.entry(deps.db, resourceId).catch((err: unknown) => deps.logger.error({ err, action: route.operationId }, 'audit entry could not be written'));
      return res;
    }
    this.entry(req.tx ?? deps.db, resourceId).then(
      () => this.send(body),
      (err: unknown) => this.next(err),
    );
    return res;
  }

  private pathId(): string | undefined {
    return Object.values(this.req.params ?? {}).find((v): v is string => typeof v === 'string');
  }

  private async entry(db: Executor, resourceId: string | null): Promise<void> {
    const { req, route, deps } = this;
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
  }
}
