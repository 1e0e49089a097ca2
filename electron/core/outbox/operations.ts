import { GATE_OPERATIONS, gateOperationParams, gateOperationPath } from '../../../shared/kiosk/gate-operations.ts';
import { checkKeyNotAdmin } from '../link/admin-key.ts';
import type { CoreContext } from '../context.ts';
import { markAttempted, noteFailure, othersPendingForVisit, type NewOperation, type OperationKind, type OutboxRow } from './store.ts';
import { gateCall, type AnswerOf, type BodyOf, type PartnerPaths, type ServerAnswer, type ServerApi } from '../link/server-api.ts';
import { visitById } from '../gate/visits-store.ts';
import type { KeyCheckDeps } from '../link/admin-key.ts';

/** What sending an operation reads and writes: its row, the link, the timeouts. */
export type SendDeps = Pick<CoreContext, 'db' | 'link' | 'timings'> & KeyCheckDeps;

/**
 * A new outbox operation with its own Idempotency-Key, made here on the kiosk. Its method and
 * path are the declared ones (shared/kiosk/gate-operations.ts); `pathParams` fill the path, and
 * a path whose parameters are not known yet is left empty (a checkout before its check-in has
 * a log_id: filled in when it is sent).
 */
export function newOperation(ids: Pick<CoreContext, 'newId' | 'kioskId'>, at: Date, fields: OperationFields): NewOperation {
  return makeOperation(ids.kioskId, ids.newId('op', at), at, fields);
}

export interface OperationFields {
  kind: OperationKind;
  pathParams?: Record<string, string>;
  body: Record<string, unknown>;
  visitId: string | null;
  decisionId: string | null;
}

/** The same, with its id made already: pure. */
export function makeOperation(kioskId: string, opId: string, at: Date, fields: OperationFields): NewOperation {
  const declared = GATE_OPERATIONS[fields.kind];
  const pathKnown = fields.pathParams !== undefined || !declared.path.includes(':');
  return {
    op_id: opId,
    kind: fields.kind,
    idempotency_key: `${kioskId}.${opId}`,
    method: declared.method,
    path: pathKnown ? gateOperationPath(fields.kind, fields.pathParams) : null,
    body: JSON.stringify(fields.body),
    visit_id: fields.visitId,
    decision_id: fields.decisionId,
    created_at: at.toISOString(),
  };
}

/** What the server answers a gate operation when it applies it, as the document declares each. */
export type GateAnswer =
  | AnswerOf<'post', '/access-codes/validate'>
  | AnswerOf<'post', '/access-logs'>
  | AnswerOf<'patch', '/access-logs/{logId}/checkout'>
  | AnswerOf<'put', '/kiosks/{kioskId}/heartbeat'>;
export type ValidationAnswer = AnswerOf<'post', '/access-codes/validate'>;

export type Attempt = { sent: false; why: 'waiting' | 'unsendable' } | { sent: true; answer: ServerAnswer<GateAnswer> };

/**
 * One request for one operation; call it inside `link.whileInFlight`. A checkout goes only once its
 * visit's check-in has a `log_id`. `markFirst` (the inline send): count the attempt and keep
 * the checkout's path before it leaves; the sync loop does not, as one fsync per operation is
 * what the drain would pay for nothing.
 */
export async function attemptOperation(ctx: SendDeps, op: OutboxRow, options: { timeoutMs?: number; markFirst?: boolean } = {}): Promise<Attempt> {
  const { timeoutMs, markFirst = false } = options;
  const api = ctx.link.api;
  if (!api) return { sent: false, why: 'unsendable' };
  let path = op.path;
  if (op.kind === 'checkout' && !path) {
    const visit = op.visit_id ? visitById(ctx.db, op.visit_id) : undefined;
    if (!visit?.log_id) {
      return { sent: false, why: othersPendingForVisit(ctx.db, op) > 0 ? 'waiting' : 'unsendable' };
    }
    path = gateOperationPath('checkout', { logId: visit.log_id });
  }
  // Nothing queued leaves under a key not proven non-admin (the sync proves it first; an inline send may be first).
  if (!(await checkKeyNotAdmin(ctx, timeoutMs ?? ctx.timings.requestTimeoutMs)).maySend) return { sent: false, why: 'waiting' };
  if (markFirst) markAttempted(ctx.db, op.op_id, path);
  const answer = await sendOperation(api, op, path!, timeoutMs);
  ctx.link.noteAnswer(answer);
  if (answer.kind === 'blocked') ctx.link.net.problem = `The server refuses this kiosk's key (${answer.status}): ${answer.message}`;
  else if (answer.kind !== 'unavailable') ctx.link.net.problem = null;
  if (answer.kind === 'blocked' || answer.kind === 'unavailable') noteFailure(ctx.db, op.op_id, answer.message);
  return { sent: true, answer };
}

/** The stored body, typed as the request the operation's kind declares: it was made by `newOperation` from that schema. */
function storedBody<M extends 'post' | 'put' | 'patch', P extends keyof PartnerPaths>(op: OutboxRow): BodyOf<M, P> {
  // JSON.stringify made it, so parsing and serializing again sends the same bytes (the idempotency fingerprint holds).
  return JSON.parse(op.body) as BodyOf<M, P>;
}

/** The operation's single request, by its kind, with its own Idempotency-Key. */
function sendOperation(api: ServerApi, op: OutboxRow, path: string, timeoutMs: number | undefined): Promise<ServerAnswer<GateAnswer>> {
  const header = { 'Idempotency-Key': op.idempotency_key };
  switch (op.kind) {
    case 'validate': {
      const { method, path: declared } = gateCall('validate');
      return api.call(method, declared, { params: { header }, body: storedBody<typeof method, typeof declared>(op), timeoutMs });
    }
    case 'walk_in': {
      const { method, path: declared } = gateCall('walk_in');
      return api.call(method, declared, { params: { header }, body: storedBody<typeof method, typeof declared>(op), timeoutMs });
    }
    case 'checkout': {
      const { method, path: declared } = gateCall('checkout');
      const logId = gateOperationParams('checkout', path)?.logId ?? '';
      return api.call(method, declared, { params: { header, path: { logId } }, body: storedBody<typeof method, typeof declared>(op), timeoutMs });
    }
    case 'heartbeat': {
      const { method, path: declared } = gateCall('heartbeat');
      const kioskId = gateOperationParams('heartbeat', path)?.kioskId ?? '';
      return api.call(method, declared, { params: { header, path: { kioskId } }, body: storedBody<typeof method, typeof declared>(op), timeoutMs });
    }
  }
}
