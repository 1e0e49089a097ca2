import { GATE_OPERATIONS, gateOperationPath, type GateOperation, type GateOperationKind } from '../../shared/kiosk/gate-operations.ts';
import type { ReplayItemResult, ReplayOperation } from '../../shared/schemas/kiosk-replay.ts';
import type { Scope } from '../../shared/schemas/api-keys.ts';
import { numberedAtEnd, type BatchOperationNumbering, type FeedNumbering } from '../access-codes/feed-numbering.ts';
import type { PassVerifier } from '../access-codes/pass-keys.ts';
import { validateAccessCodeGuarded } from '../access-codes/service.ts';
import { checkInWalkIn, checkOutVisitor } from '../access-logs/service.ts';
import type { EventDeps } from '../events/service.ts';
import type { Config } from '../config.ts';
import { recordHeartbeat } from '../kiosks/service.ts';
import type { Engine } from '../db/database.ts';
import { inSavepoint } from '../db/savepoint.ts';
import type { Executor, Tenant } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import { errorBody } from '../http/error-body.ts';
import { claimKey, recordAnswer, requestFingerprint, storedAnswer, type IdempotencyScope } from '../idempotency/claims.ts';
import type { RateLimitStore } from '../rate-limit/store.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import { hostTextsOf, type TextingDeps } from '../messages/service.ts';
import { waitForOtherBatches } from './store.ts';

export interface ReplayDeps extends EventDeps {
  verifyPass: PassVerifier;
  secretBox: SecretBox;
  rateLimitStore: RateLimitStore;
  engine: Engine;
  config: Pick<Config, 'KIOSK_OFFLINE_AFTER_S'>;
  /** Texts (a host told of their visitor's arrival); none: nobody is texted from a replay. */
  texting?: TextingDeps;
}

/** Who sends the batch: each operation needs the scope its single route needs. */
export interface ReplayCaller {
  tenant: Tenant;
  keyId: string;
  scopes: ReadonlySet<Scope>;
}

/** An operation as its single route would receive it (method, path and scope as declared in shared/kiosk/gate-operations.ts). */
interface SingleRequest {
  method: GateOperation['method'];
  path: string;
  scope: Scope;
  run(trx: Executor): Promise<{ status: number; body: unknown }>;
}

/** The declared request of the kind, its path filled in, and what applying it does. */
function singleRequest(kind: GateOperationKind, params: Record<string, string>, apply: (db: Executor) => Promise<unknown>): SingleRequest {
  const { method, scope, okStatus } = GATE_OPERATIONS[kind];
  return { method, path: gateOperationPath(kind, params), scope, run: async (db) => ({ status: okStatus, body: await apply(db) }) };
}

/**
 * Applies a kiosk's queued operations in `trx`, in order, each in a savepoint of its own, and
 * answers each exactly as its single route would: the same idempotency record (claim, sealed
 * answer), so a batch sent again replays every item, and a single retry of one key replays its
 * item's answer (and the reverse). A refusal (4xx) undoes only its own item; anything else
 * (the database failing) throws, and the whole batch is rolled back and applied by nothing.
 * A tenant's batches run one after another.
 */
export async function replayOperations(
  trx: Executor,
  deps: ReplayDeps,
  caller: ReplayCaller,
  ops: ReplayOperation[],
  rawBodies: unknown[],
): Promise<ReplayItemResult[]> {
  await waitForOtherBatches(trx, caller.tenant);
  // The codes the validations change get their feed numbers together at the end (feed-numbering.ts).
  return numberedAtEnd(trx, caller.tenant, async (operation) => {
    const results: ReplayItemResult[] = [];
    for (const [index, op] of ops.entries()) {
      const answer = await replayOne(trx, deps, caller, op, rawBodies[index], index, operation());
      results.push({ idempotency_key: op.idempotency_key, ...answer });
    }
    return results;
  });
}

async function replayOne(
  trx: Executor,
  deps: ReplayDeps,
  caller: ReplayCaller,
  op: ReplayOperation,
  rawBody: unknown,
  index: number,
  numbering: BatchOperationNumbering,
): Promise<Omit<ReplayItemResult, 'idempotency_key'>> {
  try {
    const answer = await inSavepoint(trx, `replay_${index}`, async () => {
      const single = await singleRequestOf(trx, deps, caller, op, index, numbering.numbering);
      if (!caller.scopes.has(single.scope)) throw new ApiError(403, `This API key lacks the ${single.scope} scope`);
      const scope: IdempotencyScope = { ...caller.tenant, key: op.idempotency_key };
      const claim = await claimKey(trx, deps, scope, requestFingerprint(single.method, single.path, rawBody));
      if (claim.answered) return { status: claim.status, replayed: true, body: JSON.parse(claim.body) as unknown };
      const { status, body } = await single.run(trx);
      await recordAnswer(trx, deps.secretBox, scope, status, body);
      return { status, replayed: false, body };
    });
    // Released: what it changed stays, so its codes are numbered at the end of the batch.
    numbering.keep();
    return answer;
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    // Refused: as the single route, nothing of it stays (its claim included), and the batch goes on.
    return { status: err.status, replayed: false, body: errorBody(err.status, err.message, err.problems, err.details) };
  }
}

async function singleRequestOf(
  trx: Executor,
  deps: ReplayDeps,
  caller: ReplayCaller,
  op: ReplayOperation,
  index: number,
  numbering: FeedNumbering,
): Promise<SingleRequest> {
  const { tenant } = caller;
  switch (op.operation) {
    case 'validate':
      return singleRequest('validate', {}, (db) => validateAccessCodeGuarded(db, { ...deps, keyId: caller.keyId, hostTexts: deps.texting && hostTextsOf(deps.texting) }, tenant, op.body, numbering));
    case 'walk_in':
      return singleRequest('walk_in', {}, async (db) => ({ access_log: await checkInWalkIn(db, deps, tenant, op.body) }));
    case 'checkout': {
      const logId = op.log_id ?? (await logOpenedBy(trx, deps.secretBox, tenant, op.log_of!, index));
      return singleRequest('checkout', { logId }, async (db) => ({ access_log: await checkOutVisitor(db, deps, tenant, logId, op.body ?? {}) }));
    }
    case 'heartbeat': {
      // It waited in the kiosk's queue: recorded as heard now, its clock not compared (server/kiosks/service.ts).
      const times = { clock: deps.clock, webhookQueue: deps.webhookQueue, offlineAfterS: deps.config.KIOSK_OFFLINE_AFTER_S };
      return singleRequest('heartbeat', { kioskId: op.kiosk_id }, (db) => recordHeartbeat(db, times, tenant, op.kiosk_id, op.body, { replayed: true }));
    }
  }
}

/**
 * The log a walk-in or a valid validation answered, from its stored idempotency answer: earlier
 * in this batch (its record is written in this transaction) or in any earlier request.
 */
async function logOpenedBy(trx: Executor, secretBox: SecretBox, tenant: Tenant, key: string, index: number): Promise<string> {
  const answer = (await storedAnswer(trx, secretBox, { ...tenant, key })) as { log_id?: unknown; access_log?: { log_id?: unknown } } | undefined;
  const logId = answer?.log_id ?? answer?.access_log?.log_id;
  if (typeof logId === 'string') return logId;
  throw new ApiError(424, `ops[${index}].log_of: no walk-in or valid validation has been answered under Idempotency-Key ${key}`);
}
