import { createHash } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { ControlledTransaction } from 'kysely';
import type { Logger } from 'pino';
import { tenantOf } from '../auth/context.ts';
import type { Clock } from '../clock.ts';
import type { Database, Db, Executor } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import type { SecretBox } from '../webhooks/secret-box.ts';
import { completeClaim, insertClaim, releaseClaim, takeOverStaleClaim, type IdempotencyScope } from './store.ts';

/** Records are kept at least this long (contract: 24 h). */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;
/** A claim whose request died without finishing may be taken over after this. */
const CLAIM_LEASE_MS = 60_000;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The transaction of an idempotent request: the change and its stored answer commit together. */
      tx?: ControlledTransaction<Database>;
      /** Work to run once the request's transaction has committed. */
      afterCommit?: Array<() => void>;
    }
  }
}

/** The executor a route passes to its service: the request's transaction when there is one. */
export function requestDb(req: Request, db: Db): Executor {
  return req.tx ?? db;
}

/** Runs `work` once the request's change is durable: now, or after the request transaction commits. */
export function whenCommitted(req: Request, work: () => void): void {
  if (req.tx) (req.afterCommit ??= []).push(work);
  else work();
}

/**
 * Stripe's `Idempotency-Key` semantics for POST, PATCH and DELETE. The claim is committed
 * first, so a concurrent duplicate sees 409; the change and the stored answer then commit in
 * one transaction, so a crash can never leave a change without its replayable answer. An error
 * rolls the change back and releases the key, so a retry runs the request again.
 */
export function idempotency(deps: { db: Db; clock: Clock; logger: Logger; secretBox: SecretBox }): RequestHandler {
  return async (req, res, next) => {
    const key = req.get('idempotency-key');
    if (key === undefined) return next();
    if (!KEY_PATTERN.test(key)) {
      throw new ApiError(400, 'Idempotency-Key must be 1 to 255 visible ASCII characters');
    }
    const tenant = tenantOf(req);
    const scope: IdempotencyScope = { ...tenant, key };
    const fingerprint = createHash('sha256')
      .update(`${req.method} ${req.path}\n${JSON.stringify(req.body ?? null)}`)
      .digest('hex');
    const now = deps.clock.now();
    const claim = await insertClaim(deps.db, scope, fingerprint, now.toISOString());
    if (!claim.inserted) {
      const row = claim.existing;
      if (row.fingerprint !== fingerprint) {
        throw new ApiError(400, 'Idempotency-Key was already used with a different method, path or body');
      }
      if (row.state === 'complete') {
        res
          .status(row.response_status!)
          .set('Idempotent-Replayed', 'true')
          .type('application/json')
          .send(deps.secretBox.open(row.response_body!));
        return;
      }
      const stale = Date.parse(row.locked_at) < now.getTime() - CLAIM_LEASE_MS;
      if (!stale || !(await takeOverStaleClaim(deps.db, scope, row.locked_at, now.toISOString()))) {
        throw new ApiError(409, 'A request with this Idempotency-Key is still in progress; retry shortly');
      }
    }

    const tx = await deps.db.startTransaction().execute();
    req.tx = tx;
    settleOnResponse(res, tx, deps.db, scope, deps.logger, deps.secretBox);
    next();
  };
}

/** Commits (with the stored answer) or rolls back when the route answers; whichever comes first wins. */
function settleOnResponse(
  res: Response,
  tx: ControlledTransaction<Database>,
  db: Db,
  scope: IdempotencyScope,
  logger: Logger,
  secretBox: SecretBox,
) {
  const send = res.json.bind(res);
  let settled = false;

  const rollbackAndRelease = async () => {
    if (!tx.isCommitted && !tx.isRolledBack) await tx.rollback().execute();
    await releaseClaim(db, scope);
  };

  const runAfterCommit = () => {
    for (const work of res.req.afterCommit ?? []) {
      try {
        work();
      } catch (err) {
        logger.error({ err }, 'after-commit work failed');
      }
    }
  };

  res.json = (body: unknown) => {
    if (settled) return send(body);
    settled = true;
    const status = res.statusCode;
    const work =
      status < 400
        ? // Sealed: an answer may hold a secret shown once (an API key, a webhook secret) or personal data.
          completeClaim(tx, scope, status, secretBox.seal(JSON.stringify(body)))
            .then(() => tx.commit().execute())
            .then(runAfterCommit)
        : rollbackAndRelease();
    work.then(
      () => send(body),
      async (err: unknown) => {
        logger.error({ err }, 'idempotent request could not be settled');
        await rollbackAndRelease().catch(() => undefined);
        res.status(500);
        send({ code: 500, message: 'Internal server error' });
      },
    );
    return res;
  };

  // A response that ended without res.json (a dropped connection, a bug) must not hold the transaction.
  res.on('close', () => {
    if (settled) return;
    settled = true;
    rollbackAndRelease().catch((err: unknown) => logger.error({ err }, 'idempotent request could not be released'));
  });
}
