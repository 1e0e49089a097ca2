import type { ScanDecision } from '../../shared/kiosk/calls.ts';
import { GATE_OPERATIONS, gateOperationParams, gateOperationPath, withinKioskReplayWindow } from '../../shared/kiosk/gate-operations.ts';
import { checkKeyNotAdmin } from './link/admin-key.ts';
import { cachedCodeById, settleLocalUse } from './code-cache.ts';
import type { CoreContext } from './context.ts';
import { reasonFromServer } from './decide-offline.ts';
import { decisionById, setServerOutcome, type ServerOutcome } from './decisions.ts';
import {
  addAttention,
  dropPendingOperation,
  enqueueOperation,
  linkAttentionLog,
  markAttempted,
  noteFailure,
  settleOperation,
  type NewOperation,
  type OperationKind,
  type OutboxRow,
} from './outbox.ts';
import { gateCall, type AnswerOf, type BodyOf, type PartnerPaths, type ServerAnswer, type ServerApi } from './link/server-api.ts';
import { markVisitTurnedAway, setVisitLogId, visitById } from './visits.ts';
import { rememberSite } from './site.ts';

/**
 * A new outbox operation with its own Idempotency-Key, made here on the kiosk. Its method and
 * path are the declared ones (shared/kiosk/gate-operations.ts); `pathParams` fill the path, and
 * a path whose parameters are not known yet is left empty (a checkout before its check-in has
 * a log_id: filled in when it is sent).
 */
export function newOperation(
  ctx: CoreContext,
  at: Date,
  fields: { kind: OperationKind; pathParams?: Record<string, string>; body: Record<string, unknown>; visitId: string | null; decisionId: string | null },
): NewOperation {
  const opId = ctx.newId('op', at);
  const declared = GATE_OPERATIONS[fields.kind];
  const pathKnown = fields.pathParams !== undefined || !declared.path.includes(':');
  return {
    op_id: opId,
    kind: fields.kind,
    idempotency_key: `${ctx.kioskId}.${opId}`,
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
export async function attemptOperation(ctx: CoreContext, op: OutboxRow, options: { timeoutMs?: number; markFirst?: boolean } = {}): Promise<Attempt> {
  const { timeoutMs, markFirst = false } = options;
  const api = ctx.link.api;
  if (!api) return { sent: false, why: 'unsendable' };
  let path = op.path;
  if (op.kind === 'checkout' && !path) {
    const visit = op.visit_id ? visitById(ctx.db, op.visit_id) : undefined;
    if (!visit?.log_id) {
      const waitingFor = ctx.db
        .prepare(`SELECT count(*) AS n FROM outbox WHERE state = 'pending' AND visit_id = ? AND op_id <> ?`)
        .get(op.visit_id, op.op_id) as { n: number };
      return { sent: false, why: waitingFor.n > 0 ? 'waiting' : 'unsendable' };
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

/**
 * Applies the server's final answer (2xx or a 4xx refusal) to an operation, in one transaction
 * with its settlement, so a kiosk switched off in between replays it and gets the same answer.
 */
export function applyAnswer(ctx: CoreContext, op: OutboxRow, answer: Extract<ServerAnswer<GateAnswer>, { kind: 'ok' | 'refused' }>): void {
  const at = ctx.nowIso();
  // A heartbeat answered, accepted or not, is done with: it is not kept in the journal, and a
  // refusal is no guard's business; the next one replaces it (electron/core/heartbeat.ts).
  if (op.kind === 'heartbeat') {
    dropPendingOperation(ctx.db, op.op_id);
    // The answer names the kiosk's site and its call list: the numbers its SOS screen shows.
    if (answer.kind === 'ok') rememberSite(ctx, (answer.body as AnswerOf<'put', '/kiosks/{kioskId}/heartbeat'>).site);
    return;
  }
  ctx.db.transaction(() => {
    // Settled already (an earlier send's answer committed first): what follows was done then.
    if (answer.kind === 'refused') {
      if (!settleOperation(ctx.db, op.op_id, { state: 'refused', statusCode: answer.status, response: { message: answer.message }, at })) return;
      refusedForGood(ctx, op, answer.message, at);
      return;
    }
    if (!settleOperation(ctx.db, op.op_id, { state: 'done', statusCode: answer.status, response: answer.body, at })) return;
    // The body is the answer of the operation's own kind (a validation's or a visit's).
    if (op.kind === 'validate') applyValidation(ctx, op, answer.body as ValidationAnswer, at);
    else if (op.kind === 'walk_in') {
      const logId = (answer.body as AnswerOf<'post', '/access-logs'>).access_log?.log_id;
      if (logId && op.visit_id) setVisitLogId(ctx.db, op.visit_id, logId);
      if (logId) linkAttentionLog(ctx.db, op.op_id, logId);
    }
  })();
}

/** A check-in, walk-in or checkout that could not be sent at all (its check-in never reached the server). */
export function giveUp(ctx: CoreContext, op: OutboxRow, message: string): void {
  const at = ctx.nowIso();
  ctx.db.transaction(() => {
    if (!settleOperation(ctx.db, op.op_id, { state: 'refused', statusCode: null, response: { message }, at })) return;
    refusedForGood(ctx, op, message, at);
  })();
}

function refusedForGood(ctx: CoreContext, op: OutboxRow, serverMessage: string, at: string): void {
  // Never a guard's business: a heartbeat is dropped once answered (applyAnswer) and never given up on.
  if (op.kind === 'heartbeat') return;
  const body = JSON.parse(op.body) as Record<string, string | undefined>;
  const decision = decisionById(ctx.db, op.decision_id);
  const visit = op.visit_id ? visitById(ctx.db, op.visit_id) : undefined;
  const name = decision?.visitor?.name ?? visit?.visitor_name ?? body.visitor_name ?? null;
  const described = GATE_OPERATIONS[op.kind].described;
  const what = op.kind === 'validate' ? `${described} of ${decision?.code ?? 'a code'}${name ? ` (${name})` : ''}` : `${described} of ${name ?? 'a visitor'}`;
  // Only an admission decided here offline added a local use; any other refusal has none to settle.
  if (op.kind === 'validate' && decision?.codeId && decision.admitted && decision.decidedBy === 'offline') settleLocalUse(ctx.db, decision.codeId, {});
  // A visitor let in offline is inside whatever the server thinks of the scan: keep their visit.
  const followUp = op.kind === 'validate' && decision?.admitted ? recordAdmissionAsWalkIn(ctx, op, decision, serverMessage, at) : null;
  addAttention(ctx.db, {
    attention_id: ctx.newId('att', new Date(at)),
    kind: 'operation_refused',
    operation: op.kind,
    message: `${what} was not accepted by the server: ${serverMessage}`,
    server_message: serverMessage,
    visitor_name: name,
    code: decision?.code ?? null,
    happened_at: op.created_at,
    log_id: visit?.log_id ?? null,
    op_id: op.op_id,
    follow_up_op_id: followUp,
    created_at: at,
  });
}

/**
 * Queues a walk-in for a visitor admitted here offline whose scan the server did not accept,
 * so the server keeps a record of who is inside (and a later checkout has a visit to close).
 * Answers the walk-in's operation id.
 */
function recordAdmissionAsWalkIn(ctx: CoreContext, op: OutboxRow, decision: ScanDecision, serverSaid: string, at: string): string {
  const { scanned_at: scannedAt, validated_by: validatedBy } = JSON.parse(op.body) as { scanned_at: string; validated_by?: string };
  const visit = op.visit_id ? visitById(ctx.db, op.visit_id) : undefined;
  const walkIn = newOperation(ctx, new Date(at), {
    kind: 'walk_in',
    body: {
      visitor_name: decision.visitor?.name ?? `Visitor with code ${decision.code ?? 'unknown'}`,
      visitor_phone: visit?.visitor_phone ?? decision.visitor?.phone ?? 'unknown',
      ...(ctx.link.settings?.entryPoint ? { entry_point: ctx.link.settings.entryPoint } : {}),
      ...(decision.hostUserId ? { host_user_id: decision.hostUserId } : {}),
      notes: `Admitted offline at ${scannedAt} with code ${decision.code ?? '?'}; the server refused it on sync: ${serverSaid}`.slice(0, 2000),
      ...(validatedBy ? { recorded_by: validatedBy } : {}),
      // Within the server's replay window (less the kiosk's margin) it keeps its own time; an older one is recorded now, its time in the notes.
      ...(withinKioskReplayWindow(scannedAt, at) ? { checked_in_at: scannedAt } : {}),
    },
    visitId: op.visit_id,
    decisionId: op.decision_id,
  });
  enqueueOperation(ctx.db, walkIn);
  return walkIn.op_id;
}

/** A replayed scan: confirm it, or reconcile what the gate did with what the server decided. */
function applyValidation(ctx: CoreContext, op: OutboxRow, result: ValidationAnswer, at: string): void {
  const decision = decisionById(ctx.db, op.decision_id);
  const db = ctx.db;
  const setOutcome = (outcome: ServerOutcome) => setServerOutcome(db, op.decision_id, outcome);
  const scannedAt = (JSON.parse(op.body) as { scanned_at: string }).scanned_at;

  if (result.valid) {
    const cached = cachedCodeById(db, result.code_id);
    const useCount = cached ? cached.max_uses - result.uses_remaining : undefined;
    if (decision?.admitted) {
      setOutcome('confirmed');
      if (op.visit_id) setVisitLogId(db, op.visit_id, result.log_id);
      if (decision.decidedBy === 'offline') settleLocalUse(db, result.code_id, { useCount });
      return;
    }
    // Turned away here (offline, or the kiosk stopped before it could answer), admitted there:
    // the server must not count them inside.
    setOutcome('admitted_on_replay');
    const visitId = op.visit_id ?? ctx.newId('vis', new Date(at));
    db.prepare(`
      INSERT INTO visits (visit_id, log_id, method, code_id, visitor_name, visitor_phone, host_user_id, entry_point, checked_in_at, state, origin)
      VALUES (?, ?, 'code', ?, ?, ?, ?, ?, ?, 'turned_away', 'kiosk')
      ON CONFLICT (visit_id) DO UPDATE SET log_id = excluded.log_id, state = 'turned_away'`).run(
      visitId,
      result.log_id,
      result.code_id,
      result.visitor.name,
      result.visitor.phone,
      result.host_user_id,
      ctx.link.settings?.entryPoint ?? null,
      scannedAt,
    );
    markVisitTurnedAway(db, visitId);
    if (useCount !== undefined) db.prepare('UPDATE codes SET use_count = MAX(use_count, ?) WHERE code_id = ?').run(useCount, result.code_id);
    const checkout = newOperation(ctx, new Date(at), {
      kind: 'checkout',
      pathParams: { logId: result.log_id },
      body: { checkout_notes: 'Turned away at the gate: the kiosk refused this scan while offline', checked_out_at: at },
      visitId,
      decisionId: op.decision_id,
    });
    enqueueOperation(db, checkout);
    addAttention(db, {
      attention_id: ctx.newId('att', new Date(at)),
      kind: 'refusal_overturned',
      operation: 'validate',
      message: `${result.visitor.name ?? 'A visitor'} was turned away here, but the server accepted the code; the kiosk has checked them out on the server. Call the host if they are still waiting.`,
      server_message: 'valid',
      visitor_name: result.visitor.name,
      code: decision?.code ?? cached?.code ?? null,
      happened_at: scannedAt,
      log_id: result.log_id,
      op_id: op.op_id,
      follow_up_op_id: checkout.op_id,
      created_at: at,
    });
    return;
  }

  if (!decision?.admitted) {
    setOutcome('confirmed');
    return;
  }
  // Admitted here offline, refused there: the visitor is inside. Say so, and record the visit
  // as a walk-in so the server keeps it (and the checkout that may follow has a log to close).
  setOutcome('refused');
  const reason = reasonFromServer(result.reason);
  if (decision.codeId) {
    const cached = cachedCodeById(db, decision.codeId);
    settleLocalUse(db, decision.codeId, {
      useCount: reason === 'used_up' && cached ? cached.max_uses : undefined,
      status: reason === 'revoked' ? 'revoked' : undefined,
    });
  }
  const name = decision.visitor?.name ?? null;
  const walkInOpId = recordAdmissionAsWalkIn(ctx, op, decision, result.reason, at);
  addAttention(db, {
    attention_id: ctx.newId('att', new Date(at)),
    kind: 'admission_refused',
    operation: 'validate',
    message: `${name ?? 'A visitor'} was admitted offline with ${decision.code ?? 'a code'}, but the server says: ${result.reason}. The visit is recorded as a walk-in; check with the host.`,
    server_message: result.reason,
    visitor_name: name,
    code: decision.code,
    happened_at: scannedAt,
    log_id: null,
    op_id: op.op_id,
    follow_up_op_id: walkInOpId,
    created_at: at,
  });
}
