import type { Request, RequestHandler, Response } from 'express';
import type { ControlledTransaction } from 'kysely';
import type { Logger } from 'pino';
import { authOf, tenantOf } from '../auth/context.ts';
import type { Clock } from '../clock.ts';
import type { Engine } from '../db/database.ts';
import type { Database, Db, Executor } from '../db/schema.ts';
import { isDatabaseUnavailable } from '../db/errors.ts';
import type { IdempotentMode } from '../http/define-route.ts';
import { errorBody } from '../http/error-body.ts';
import { ApiError, databaseUnavailable } from '../http/errors.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import { answeredBefore, claimKey, flightKeyOf, recordAnswer, releaseKey, requestFingerprint, stillInFlight, type Claim, type ClaimDeps, type IdempotencyScope } from './claims.ts';
import { purgeIdempotencyRecords } from './store.ts';
import { DAY_MS } from '../../shared/time.ts';

/** Records are kept at least this long (contract: 24 h). */
export const IDEMPOTENCY_RETENTION_MS = DAY_MS;
/** The sweep's part: records past their retention go; answers how many. */
/** Records past their 24 h go, a thousand a statement, at most `most` a sweep (the next sweep goes on). */
export async function purgeExpiredIdempotencyRecords(db: Executor, clock: Clock, most = 50_000): Promise<number> {
  const before = new Date(clock.now().getTime() - IDEMPOTENCY_RETENTION_MS).toISOString();
  let purged = 0;
  while (purged < most) {
    const n = await purgeIdempotencyRecords(db, before, 1000);
    purged += n;
    if (n < 1000) break;
  }
  return purged;
}
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The transaction of an idempotent request: the change and its stored answer commit together. */
      tx?: ControlledTransaction<Database>;
      /** Work to run once the request's transaction has committed. */
      afterCommit?: Array<() => void>;
      /** The Idempotency-Key of a route whose service claims it in its own transaction (`claimed-by-service`). */
      keyClaim?: KeyClaim;
    }
  }
}

/** Runs `work` once the request's change is durable: now, or after the request transaction commits. */
export function whenCommitted(req: Request, work: () => void): void {
  if (req.tx) (req.afterCommit ??= []).push(work);
  else work();
}

/**
 * Stripe's `Idempotency-Key` semantics for POST, PATCH and DELETE, in one commit: the claim, the
 * change and the sealed answer are written in the request's transaction and commit together
 * (one fsync; on SQLite shared with concurrent requests by group commit). A crash before the
 * commit leaves nothing, so a retry runs again; an error rolls the whole request back, claim
 * included. A concurrent duplicate gets 409: on this host from the set of keys in flight, on
 * another PostgreSQL host from a transaction-scoped advisory lock on the key (SQLite hosts
 * share one writer, so a duplicate from another process waits and then replays).
 */
export function idempotency(deps: { db: Db; clock: Clock; logger: Logger; secretBox: SecretBox; engine: Engine }): (mode: IdempotentMode) => RequestHandler {
  const inFlight = new Set<string>();
  return (mode) => async (req, res, next) => {
    const key = req.get('idempotency-key');
    if (key === undefined) return next();
    if (!KEY_PATTERN.test(key)) {
      throw new ApiError(400, 'Idempotency-Key must be 1 to 255 visible ASCII characters');
    }
    const tenant = tenantOf(req);
    const scope: IdempotencyScope = { ...tenant, key };
    // The route's own access (scope, precheck) has already run: a replay is authorized like the request.
    const credential = authOf(req).credential;
    const fingerprint = requestFingerprint(req.method, req.path, req.body);
    const flightKey = flightKeyOf(scope);
    if (inFlight.has(flightKey)) throw stillInFlight();
    inFlight.add(flightKey);
    const landed = landedBy(inFlight, flightKey);

    if (mode === 'claimed-by-service') {
      let before: Claim;
      try {
        before = await answeredBefore(deps.db, deps, scope, fingerprint, credential);
      } catch (err) {
        landed();
        throw err;
      }
      if (before.answered) {
        landed();
        sendReplay(res, before);
        return;
      }
      // Off this host's keys in flight once the answer is sent (or the connection drops).
      res.on('close', landed);
      req.keyClaim = new KeyClaim(deps, scope, fingerprint, credential);
      return next();
    }

    let tx: ControlledTransaction<Database>;
    try {
      tx = await deps.db.startTransaction().execute();
    } catch (err) {
      landed();
      throw err;
    }
    try {
      const claim = await claimKey(tx, deps, scope, fingerprint, credential);
      if (claim.answered) {
        // Committing nothing still waits for the commit that wrote this answer (group commit).
        await tx.commit().execute();
        landed();
        sendReplay(res, claim);
        return;
      }
    } catch (err) {
      if (!tx.isCommitted && !tx.isRolledBack) await tx.rollback().execute().catch(() => undefined);
      landed();
      throw err;
    }
    req.tx = tx;
    settleOnResponse(res, tx, scope, deps.logger, deps.secretBox, mode === 'answer-holds-secret' ? credential : undefined, landed);
    next();
  };
}

const landedBy = (inFlight: Set<string>, flightKey: string) => () => void inFlight.delete(flightKey);

/** A stored answer, sent again as it was (`send`, not `json`: a replay is not a change, so no audit entry). */
export function sendReplay(res: Response, claim: Extract<Claim, { answered: true }>): void {
  res.status(claim.status).set('Idempotent-Replayed', 'true').type('application/json').send(claim.body);
}

/**
 * The Idempotency-Key of a route declared `claimed-by-service`: instead of a transaction of the
 * request's own, the service claims the key, stores its answer (or gives the key back when it
 * refuses) in the transaction it runs anyway, which on PostgreSQL a tenant's validations share
 * (server/db/serial-batches.ts). Stripe's semantics are the middleware's: the claim, the change and
 * the sealed answer commit together, an answered key replays (read before the route runs, and
 * again under the claim's lock), a key in flight is a 409, another body a 400.
 */
export class KeyClaim {
  constructor(
    private readonly deps: ClaimDeps,
    readonly scope: IdempotencyScope,
    private readonly fingerprint: string,
    private readonly credential: string,
  ) {}

  /** Claims the key in `trx`; answered: another request with this key committed since it was read (another host). */
  claim(trx: Executor): Promise<Claim> {
    return claimKey(trx, this.deps, this.scope, this.fingerprint, this.credential);
  }

  /** Stores the answer in `trx`, sealed; it commits with the change. */
  record(trx: Executor, status: number, body: unknown): Promise<void> {
    return recordAnswer(trx, this.deps.secretBox, this.scope, status, body);
  }

  /** The request was refused (4xx) after its claim: no record stays, and a retry runs again. */
  release(trx: Executor): Promise<void> {
    return releaseKey(trx, this.scope);
  }
}

/** Commits (with the stored answer) or rolls back when the route answers; whichever comes first wins. */
function settleOnResponse(
  res: Response,
  tx: ControlledTransaction<Database>,
  scope: IdempotencyScope,
  logger: Logger,
  secretBox: SecretBox,
  makerCredential: string | undefined,
  landed: () => void,
) {
  const settlement = new Settlement(res, tx, scope, logger, secretBox, makerCredential, landed);
  res.json = answerBy(settlement);
  // A response that ended without res.json (a dropped connection, a bug) must not hold the transaction.
  res.on('close', closedBy(settlement));
}

/**
 * Made here, outside the function that installs them: a closure made and installed as an own
 * property of `res` by the same function kept each request's objects alive through V8's young
 * collections (docs/benchmarks.md, "A closure that kept every request").
 */
const answerBy = (settlement: Settlement) => (body: unknown) => settlement.answer(body);
const closedBy = (settlement: Settlement) => () => settlement.closed();

class Settlement {
  private settled = false;
  private readonly send: (body: unknown) => Response;

  constructor(
    private readonly res: Response,
    private readonly tx: ControlledTransaction<Database>,
    private readonly scope: IdempotencyScope,
    private readonly logger: Logger,
    private readonly secretBox: SecretBox,
    private readonly makerCredential: string | undefined,
    private readonly landed: () => void,
  ) {
    this.send = res.json.bind(res);
  }

  answer(body: unknown): Response {
    const { res, tx, logger, landed } = this;
    if (this.settled) return this.send(body);
    this.settled = true;
    const status = res.statusCode;
    const work =
      status < 400
        ? // Sealed: an answer may hold a secret shown once (an API key, a webhook secret) or personal data.
          recordAnswer(tx, this.secretBox, this.scope, status, body, this.makerCredential)
            .then(() => tx.commit().execute())
            .then(() => this.runAfterCommit())
        : this.rollback();
    work.then(
      () => {
        landed();
        this.send(body);
      },
      async (err: unknown) => {
        logger.error({ err }, 'idempotent request could not be settled');
        await this.rollback().catch(() => undefined);
        landed();
        // The commit's outcome may be unknown (the connection dropped during it): never a success.
        const answer = isDatabaseUnavailable(err) ? databaseUnavailable() : new ApiError(500, 'Internal server error');
        res.status(answer.status).set(answer.headers);
        this.send(errorBody(answer.status, answer.message));
      },
    );
    return res;
  }

  closed(): void {
    if (this.settled) return;
    this.settled = true;
    this.rollback()
      .catch((err: unknown) => this.logger.error({ err }, 'idempotent request could not be rolled back'))
      .finally(this.landed);
  }

  private async rollback(): Promise<void> {
    if (!this.tx.isCommitted && !this.tx.isRolledBack) await this.tx.rollback().execute();
  }

  private runAfterCommit(): void {
    for (const work of this.res.req.afterCommit ?? []) {
      try {
        work();
      } catch (err) {
        this.logger.error({ err }, 'after-commit work failed');
      }
    }
  }
}
