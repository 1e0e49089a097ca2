import { gateOperationParams } from '../../../shared/kiosk/gate-operations.ts';
import { checkKeyNotAdmin } from '../link/admin-key.ts';
import type { CoreContext } from '../context.ts';
import { applyAnswer, giveUp } from './answers.ts';
import type { GateAnswer } from './operations.ts';
import { noteFailure, operationById, othersPendingForVisit, pendingOpenerOf, type OutboxRow } from './store.ts';
import { classifyAnswer, type BodyOf, type ServerAnswer } from '../link/server-api.ts';
import { visitById } from '../gate/visits-store.ts';
import type { KeyCheckDeps } from '../link/admin-key.ts';
import type { AnswerDeps } from './answers.ts';

/** What a batch replay reads and writes. */
export type ReplayDeps = Pick<CoreContext, 'db' | 'kioskId' | 'timings'> & KeyCheckDeps & AnswerDeps;

/**
 * Operations per `POST /kiosk/replay` (the server takes up to 200). On a SQLite server a batch
 * holds the writer while it runs, so other gates' writes wait that long: 100 keeps it to a few
 * hundred milliseconds there while making the drain's round trips and commits a hundredth.
 */
export const REPLAY_BATCH = 100;

/** What became of one batch. */
export type BatchOutcome =
  /** The server answered each item: settled ones are committed; `stop` is the first item that asks the replay to stop (key refused, try later). */
  | { kind: 'answered'; sent: number; refused: number; stop: ServerAnswer | null }
  /** The server will not take this batch (an older server: 404; a malformed operation: 400; a key without access_codes:write: 403): send it one at a time. */
  | { kind: 'one_at_a_time'; answer: ServerAnswer }
  /** No answer, or the key or plan refused: nothing changed here; the replay stops. */
  | { kind: 'failed'; answer: ServerAnswer };

/** One operation of `POST /kiosk/replay`, as the document declares it. */
type ReplayItem = BodyOf<'post', '/kiosk/replay'>['ops'][number];

interface Planned {
  op: OutboxRow;
  item: ReplayItem;
}

/**
 * Sends `ops` (pending, in the order they happened) in one request, and commits every answer in
 * one local transaction: a kiosk that dies before that commit sends the same batch again, and
 * the server replays each item's stored answer. A checkout whose visit has no `log_id` yet names
 * the operation that opens it (`log_of`: its Idempotency-Key), which the server resolves, so a
 * walk-in and its checkout can go in the same batch.
 */
export async function replayBatch(ctx: ReplayDeps, ops: OutboxRow[]): Promise<BatchOutcome> {
  const api = ctx.link.api;
  if (!api) return { kind: 'failed', answer: { kind: 'unavailable', status: null, message: 'This kiosk is not set up yet', retryAfterMs: null } };
  const key = await checkKeyNotAdmin(ctx, ctx.timings.requestTimeoutMs);
  if (!key.maySend) return { kind: 'failed', answer: key.admin ? { kind: 'blocked', status: 403, message: ctx.link.net.problem ?? 'admin key' } : key.answer };

  let refused = 0;
  const planned: Planned[] = [];
  for (const listed of ops) {
    if (ctx.link.inFlight.has(listed.op_id)) continue;
    // The list may be stale: an inline send may have settled this one since it was read.
    const op = operationById(ctx.db, listed.op_id);
    if (op?.state !== 'pending') continue;
    const item = itemFor(ctx, op);
    if (item === 'waiting') continue;
    if (item === 'unsendable') {
      giveUp(ctx, op, 'its check-in never reached the server');
      refused++;
      continue;
    }
    planned.push({ op, item });
  }
  if (planned.length === 0) return { kind: 'answered', sent: 0, refused, stop: null };

  for (const { op } of planned) ctx.link.inFlight.add(op.op_id);
  try {
    const answer = await api.call('post', '/kiosk/replay', { body: { ops: planned.map((entry) => entry.item) }, timeoutMs: ctx.timings.requestTimeoutMs });
    ctx.link.noteAnswer(answer);
    if (answer.kind === 'refused' || (answer.kind === 'blocked' && answer.status === 403)) return { kind: 'one_at_a_time', answer };
    if (answer.kind !== 'ok') {
      ctx.db.transaction(() => planned.forEach(({ op }) => noteFailure(ctx.db, op.op_id, answer.message)))();
      return { kind: 'failed', answer };
    }
    const results = answer.body?.results;
    if (!Array.isArray(results) || results.length !== planned.length) {
      return { kind: 'failed', answer: { kind: 'unavailable', status: answer.status, message: 'The server answered the replay without a result for each operation', retryAfterMs: null } };
    }
    ctx.link.net.problem = null;
    let sent = 0;
    let stop: ServerAnswer | null = null;
    ctx.db.transaction(() => {
      results.forEach((result, index) => {
        const { op } = planned[index]!;
        // 424: the check-in it names has not been answered yet; it goes in a later batch.
        if (result.status === 424) return;
        let item = classifyAnswer<GateAnswer>(result.status, result.body, { replayed: result.replayed, retryAfter: null });
        // A heartbeat the key may not send (no access_codes:validate) must not hold up the queue behind it.
        if (op.kind === 'heartbeat' && item.kind === 'blocked') item = { kind: 'refused', status: item.status, message: item.message };
        if (item.kind === 'ok' || item.kind === 'refused') {
          applyAnswer(ctx, op, item);
          // A heartbeat is the kiosk's report, not one of the guard's operations: not counted.
          if (op.kind === 'heartbeat') return;
          if (item.kind === 'ok') sent++;
          else refused++;
          return;
        }
        noteFailure(ctx.db, op.op_id, item.message);
        stop ??= item;
      });
    })();
    return { kind: 'answered', sent, refused, stop };
  } finally {
    for (const { op } of planned) ctx.link.inFlight.delete(op.op_id);
  }
}

/** The batch item for an operation, as its single request would carry it. */
function itemFor(ctx: ReplayDeps, op: OutboxRow): ReplayItem | 'waiting' | 'unsendable' {
  // The stored body was made from its kind's request schema (newOperation); the casts say so.
  const body: unknown = JSON.parse(op.body);
  if (op.kind === 'heartbeat') return { operation: 'heartbeat', idempotency_key: op.idempotency_key, kiosk_id: gateOperationParams('heartbeat', op.path ?? '')?.kioskId ?? ctx.kioskId, body } as ReplayItem;
  if (op.kind !== 'checkout') return { operation: op.kind, idempotency_key: op.idempotency_key, body } as ReplayItem;
  const target = checkoutTarget(ctx, op);
  if (typeof target === 'string') return target;
  return { operation: 'checkout', idempotency_key: op.idempotency_key, ...target, body } as ReplayItem;
}

function checkoutTarget(ctx: ReplayDeps, op: OutboxRow): { log_id: string } | { log_of: string } | 'waiting' | 'unsendable' {
  const fromPath = op.path ? gateOperationParams('checkout', op.path) : undefined;
  if (fromPath?.logId) return { log_id: fromPath.logId };
  const visit = op.visit_id ? visitById(ctx.db, op.visit_id) : undefined;
  if (visit?.log_id) return { log_id: visit.log_id };
  const opener = pendingOpenerOf(ctx.db, op);
  if (opener) return { log_of: opener };
  return othersPendingForVisit(ctx.db, op) > 0 ? 'waiting' : 'unsendable';
}
