import {
  KioskCallError,
  type CheckoutResult,
  type KioskCallParsed,
  type OnPremises,
  type ScanDecision,
  type WalkInResult,
} from '../../shared/kiosk/calls.ts';
import type { ValidationResult } from '../../shared/schemas/access.ts';
import { addLocalUse, cachedCodeById, noteServerUse, rememberPass } from './code-cache.ts';
import type { CoreContext } from './context.ts';
import { decideOffline, decisionMessage, NO_PASS_KEYS_MESSAGE, reasonFromServer, type OfflineVerdict } from './decide-offline.ts';
import { applyAnswer, attemptOperation, newOperation, whileInFlight } from './operations.ts';
import { enqueueOperation, operationById, settleOperation } from './outbox.ts';
import { readSetting } from './settings.ts';
import { insertVisit, markVisitOut, serverVisitorByLogId, toVisit, visitById, visitByLogId, visitorsOnPremises, type VisitRow } from './visits.ts';

function settingsOf(ctx: CoreContext) {
  if (!ctx.settings) throw new KioskCallError(412, 'This kiosk is not set up yet: run the setup first');
  return ctx.settings;
}

/** Worth asking the server first: it answered last time, or has not been tried yet. */
function tryServerFirst(ctx: CoreContext): boolean {
  return ctx.api !== undefined && ctx.net.online !== false && ctx.net.problem === null;
}

/**
 * A scan. The operation is written to the outbox before anything else, then, with the link up,
 * sent at once: the server decides (and its answer settles the operation). Without an answer in
 * time the kiosk decides from its cache and the signed pass, and the outbox replays the scan,
 * with the time it happened, when the link returns.
 */
export async function scan(ctx: CoreContext, input: KioskCallParsed<'scan'>): Promise<ScanDecision> {
  const settings = settingsOf(ctx);
  const now = ctx.clock.now();
  const decisionId = ctx.newId('dec', now);
  const visitId = ctx.newId('vis', now);
  const guard = ctx.guard();
  const op = newOperation(ctx, now, {
    kind: 'validate',
    body: {
      code: input.text,
      ...(guard ? { validated_by: guard.name } : {}),
      entry_point: settings.entryPoint,
      scanned_at: now.toISOString(),
    },
    visitId,
    decisionId,
  });

  if (tryServerFirst(ctx) && !spentHere(ctx, input.text, now)) {
    enqueueOperation(ctx.db, op);
    return whileInFlight(ctx, op.op_id, async () => {
      const attempt = await attemptOperation(ctx, operationById(ctx.db, op.op_id)!, { timeoutMs: ctx.timings.onlineDecisionTimeoutMs, markFirst: true });
      if (attempt.sent && attempt.answer.kind === 'ok') {
        return decidedByServer(ctx, op.op_id, attempt.answer.status, attempt.answer.body as ValidationResult, { decisionId, visitId, input, now });
      }
      if (attempt.sent && attempt.answer.kind === 'unavailable' && attempt.answer.status === 429 && /unknown code/i.test(attempt.answer.message)) {
        // The server refused to decide: nothing happened there, and nothing is to replay.
        const decision = refusal(decisionId, input, now, 'too_many_attempts', 'server', null);
        const message = attempt.answer.message;
        ctx.db.transaction(() => {
          settleOperation(ctx.db, op.op_id, { state: 'withdrawn', statusCode: 429, response: { message }, at: now.toISOString() });
          insertDecision(ctx, decision, op.op_id);
        })();
        return decision;
      }
      // No answer in time, the key refused, or the scan refused as such (a 4xx): the guard still
      // gets a decision, made here. The operation stays queued: the request may have reached the
      // server, and the sync loop settles it as it settles any replay (a 4xx lands in the
      // attention list with the decision it contradicts). Not sent at all (the key not yet proven
      // non-admin): a refusal here is final, as any offline refusal.
      return decideHere(ctx, { decisionId, visitId, input, now, opId: op.op_id, queued: attempt.sent });
    });
  }
  return decideHere(ctx, { decisionId, visitId, input, now, opId: null, queued: false, op });
}

/**
 * The code's last uses were granted here offline and the server has not heard of them yet: it
 * would admit again. The kiosk refuses without asking.
 */
function spentHere(ctx: CoreContext, text: string, now: Date): boolean {
  const verdict = decideOffline(ctx.db, ctx.verifier, text, now.getTime());
  const code = verdict.code;
  return verdict.reason === 'used_up' && code !== null && code.local_uses > 0 && code.use_count < code.max_uses;
}

function decidedByServer(
  ctx: CoreContext,
  opId: string,
  status: number,
  result: ValidationResult,
  at: { decisionId: string; visitId: string; input: KioskCallParsed<'scan'>; now: Date },
): ScanDecision {
  let decision: ScanDecision;
  if (result.valid) {
    const cached = cachedCodeById(ctx.db, result.code_id);
    decision = {
      decisionId: at.decisionId,
      admitted: true,
      decidedBy: 'server',
      reason: 'admitted',
      message: decisionMessage('admitted', result.visitor.name, 'server'),
      code: cached?.code ?? null,
      codeId: result.code_id,
      visitor: result.visitor,
      purpose: result.purpose,
      hostUserId: result.host_user_id,
      usesLeft: result.uses_remaining,
      validUntil: result.valid_until,
      visitId: at.visitId,
      method: at.input.method,
      scannedAt: at.now.toISOString(),
    };
  } else {
    // The server says only why; the kiosk may hold the code's details: whose pass, whose visitor.
    const known = decideOffline(ctx.db, ctx.verifier, at.input.text, at.now.getTime()).code;
    decision = withDetails(refusal(at.decisionId, at.input, at.now, reasonFromServer(result.reason), 'server', known?.code ?? null, known?.code_id ?? null), known);
  }
  ctx.db.transaction(() => {
    settleOperation(ctx.db, opId, { state: 'done', statusCode: status, response: result, at: ctx.nowIso() });
    insertDecision(ctx, decision, opId, 'confirmed');
    if (result.valid) {
      const cached = cachedCodeById(ctx.db, result.code_id);
      if (cached) noteServerUse(ctx.db, result.code_id, cached.max_uses - result.uses_remaining);
      insertCodeVisit(ctx, at.visitId, result.log_id, at.now, {
        code_id: result.code_id,
        visitor_name: result.visitor.name,
        visitor_phone: result.visitor.phone,
        host_user_id: result.host_user_id,
      });
    }
  })();
  return decision;
}

function decideHere(
  ctx: CoreContext,
  at: {
    decisionId: string;
    visitId: string;
    input: KioskCallParsed<'scan'>;
    now: Date;
    /** The operation already in the outbox, if any. */
    opId: string | null;
    /** true: the request may have reached the server, so even a refusal is replayed to learn the truth. */
    queued: boolean;
    /** Not yet written: written only when the scan admits. */
    op?: ReturnType<typeof newOperation>;
  },
): ScanDecision {
  const verdict = decideOffline(ctx.db, ctx.verifier, at.input.text, at.now.getTime());
  const decision = offlineDecision(at.decisionId, at.input, at.now, verdict, at.visitId);
  ctx.db.transaction(() => {
    let opId = at.opId;
    if (verdict.admitted && at.op && !opId) {
      enqueueOperation(ctx.db, at.op);
      opId = at.op.op_id;
    } else if (!verdict.admitted && opId && !at.queued) {
      settleOperation(ctx.db, opId, { state: 'withdrawn', statusCode: null, response: undefined, at: at.now.toISOString() });
    }
    insertDecision(ctx, decision, opId);
    if (!verdict.admitted || !verdict.code) return;
    if (verdict.unseenPass) rememberPass(ctx.db, verdict.unseenPass, at.now.toISOString());
    addLocalUse(ctx.db, verdict.code.code_id);
    insertCodeVisit(ctx, at.visitId, null, at.now, verdict.code);
  })();
  return decision;
}

/** A visit opened here by a code, admitted by the server (with its log id) or offline (log id to come). */
function insertCodeVisit(
  ctx: CoreContext,
  visitId: string,
  logId: string | null,
  now: Date,
  code: Pick<VisitRow, 'code_id' | 'visitor_name' | 'visitor_phone' | 'host_user_id'>,
): void {
  insertVisit(ctx.db, {
    visit_id: visitId,
    log_id: logId,
    method: 'code',
    code_id: code.code_id,
    visitor_name: code.visitor_name,
    visitor_phone: code.visitor_phone,
    host_user_id: code.host_user_id,
    entry_point: settingsOf(ctx).entryPoint,
    checked_in_at: now.toISOString(),
    checked_out_at: null,
    state: 'inside',
    origin: 'kiosk',
  });
}

function offlineDecision(decisionId: string, input: KioskCallParsed<'scan'>, now: Date, verdict: OfflineVerdict, visitId: string): ScanDecision {
  const code = verdict.code;
  if (!verdict.admitted) {
    const refused = withDetails(refusal(decisionId, input, now, verdict.reason, 'offline', code?.code ?? null, code?.code_id ?? null), code);
    return verdict.noPassKeys ? { ...refused, message: NO_PASS_KEYS_MESSAGE } : refused;
  }
  return {
    decisionId,
    admitted: true,
    decidedBy: 'offline',
    reason: 'admitted',
    message: decisionMessage('admitted', code!.visitor_name, 'offline', code!.code),
    code: code!.code,
    codeId: code!.code_id,
    visitor: code!.visitor_name || code!.visitor_phone ? { name: code!.visitor_name, phone: code!.visitor_phone } : null,
    purpose: code!.purpose,
    hostUserId: code!.host_user_id,
    // A pass never seen: its own uses here are known, others' are not.
    usesLeft: verdict.unseenPass ? null : Math.max(code!.max_uses - code!.use_count - code!.local_uses - 1, 0),
    validUntil: new Date(code!.valid_until_ms).toISOString(),
    visitId,
    method: input.method,
    scannedAt: now.toISOString(),
  };
}

/** A refusal names the visitor and the host when the kiosk knows them, so the guard can call the right person. */
function withDetails(decision: ScanDecision, code: OfflineVerdict['code']): ScanDecision {
  if (!code) return decision;
  return {
    ...decision,
    visitor: code.visitor_name || code.visitor_phone ? { name: code.visitor_name, phone: code.visitor_phone } : null,
    purpose: code.purpose,
    hostUserId: code.host_user_id,
  };
}

function refusal(
  decisionId: string,
  input: KioskCallParsed<'scan'>,
  now: Date,
  reason: ScanDecision['reason'],
  decidedBy: ScanDecision['decidedBy'],
  code: string | null,
  codeId: string | null = null,
): ScanDecision {
  return {
    decisionId,
    admitted: false,
    decidedBy,
    reason,
    message: decisionMessage(reason, null, decidedBy),
    code,
    codeId,
    visitor: null,
    purpose: null,
    hostUserId: null,
    usesLeft: null,
    validUntil: null,
    visitId: null,
    method: input.method,
    scannedAt: now.toISOString(),
  };
}

/** The latest scans and their answers, newest first: the scan screen's "Recent", kept across a reload. */
export function recentScans(db: CoreContext['db'], limit: number): ScanDecision[] {
  const rows = db.prepare('SELECT decision FROM decisions ORDER BY scanned_at DESC, rowid DESC LIMIT ?').all(limit) as Array<{ decision: string }>;
  return rows.map((row) => JSON.parse(row.decision) as ScanDecision);
}

function insertDecision(ctx: CoreContext, decision: ScanDecision, opId: string | null, serverOutcome: string | null = null): void {
  ctx.db
    .prepare(
      `INSERT INTO decisions (decision_id, scanned_at, code_id, admitted, decided_by, op_id, server_outcome, decision) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(decision.decisionId, decision.scannedAt, decision.codeId, decision.admitted ? 1 : 0, decision.decidedBy, opId, serverOutcome, JSON.stringify(decision));
}

/** A visitor without a code: saved, then sent at once when the link is up. */
export async function walkIn(ctx: CoreContext, input: KioskCallParsed<'walkIn'>): Promise<WalkInResult> {
  const settings = settingsOf(ctx);
  const now = ctx.clock.now();
  const guard = ctx.guard();
  const visit: VisitRow = {
    visit_id: ctx.newId('vis', now),
    log_id: null,
    method: 'walk_in',
    code_id: null,
    visitor_name: input.visitorName,
    visitor_phone: input.visitorPhone,
    host_user_id: input.hostUserId ?? null,
    entry_point: settings.entryPoint,
    checked_in_at: now.toISOString(),
    checked_out_at: null,
    state: 'inside',
    origin: 'kiosk',
  };
  const op = newOperation(ctx, now, {
    kind: 'walk_in',
    body: {
      visitor_name: input.visitorName,
      visitor_phone: input.visitorPhone,
      entry_point: settings.entryPoint,
      ...(input.hostUserId ? { host_user_id: input.hostUserId } : {}),
      ...(input.notes ? { notes: input.notes } : {}),
      ...(guard ? { recorded_by: guard.name } : {}),
      checked_in_at: now.toISOString(),
    },
    visitId: visit.visit_id,
    decisionId: null,
  });
  ctx.db.transaction(() => {
    insertVisit(ctx.db, visit);
    enqueueOperation(ctx.db, op);
  })();
  const queued = !(await sendNow(ctx, op.op_id));
  return { visit: toVisit(visitById(ctx.db, visit.visit_id)!, queued), queued };
}

/** Checks a visitor out: one checked in here (even one still waiting to sync) or one from the organization's list. */
export async function checkout(ctx: CoreContext, input: KioskCallParsed<'checkout'>): Promise<CheckoutResult> {
  settingsOf(ctx);
  const now = ctx.clock.now();
  const guard = ctx.guard();
  let visit = visitById(ctx.db, input.visitId) ?? visitByLogId(ctx.db, input.visitId);
  if (!visit) {
    const listed = serverVisitorByLogId(ctx.db, input.visitId);
    if (!listed) throw new KioskCallError(404, `No visitor ${input.visitId} on this kiosk's list`);
    visit = {
      visit_id: listed.log_id,
      log_id: listed.log_id,
      method: listed.code_id ? 'code' : 'walk_in',
      code_id: listed.code_id,
      visitor_name: listed.visitor_name,
      visitor_phone: listed.visitor_phone,
      host_user_id: listed.host_user_id,
      entry_point: listed.entry_point,
      checked_in_at: listed.checked_in_at,
      checked_out_at: null,
      state: 'inside',
      origin: 'server',
    };
  }
  if (visit.state !== 'inside') throw new KioskCallError(409, `${visit.visitor_name ?? 'This visitor'} is already checked out`);
  const v = visit;
  const op = newOperation(ctx, now, {
    kind: 'checkout',
    ...(v.log_id ? { pathParams: { logId: v.log_id } } : {}),
    body: {
      ...(input.notes ? { checkout_notes: input.notes } : {}),
      ...(guard ? { recorded_by: guard.name } : {}),
      checked_out_at: now.toISOString(),
    },
    visitId: v.visit_id,
    decisionId: null,
  });
  ctx.db.transaction(() => {
    if (!visitById(ctx.db, v.visit_id)) insertVisit(ctx.db, v);
    markVisitOut(ctx.db, v.visit_id, now.toISOString());
    enqueueOperation(ctx.db, op);
  })();
  const queued = !(await sendNow(ctx, op.op_id));
  return { visit: toVisit(visitById(ctx.db, v.visit_id)!, queued), checkedOutAt: now.toISOString(), queued };
}

/**
 * Sends one just-saved operation at once, when the link is up and nothing of its visit waits
 * before it. True when the server has it (or refused it for good: then it is in the attention list).
 */
async function sendNow(ctx: CoreContext, opId: string): Promise<boolean> {
  if (!tryServerFirst(ctx)) return false;
  return whileInFlight(ctx, opId, async () => {
    const attempt = await attemptOperation(ctx, operationById(ctx.db, opId)!, { timeoutMs: ctx.timings.onlineDecisionTimeoutMs, markFirst: true });
    if (!attempt.sent) return false;
    if (attempt.answer.kind === 'ok' || attempt.answer.kind === 'refused') {
      applyAnswer(ctx, operationById(ctx.db, opId)!, attempt.answer);
      return true;
    }
    return false;
  });
}

export function onPremises(ctx: CoreContext, input: KioskCallParsed<'onPremises'>): OnPremises {
  const visitors = visitorsOnPremises(ctx.db, input.search);
  const asOf = readSetting(ctx.db, 'visitors_as_of') ?? null;
  // "N inside" is everyone inside, whatever the search shows.
  const total = input.search ? visitorsOnPremises(ctx.db, undefined).length : visitors.length;
  return { visitors, count: visitors.length, total, source: ctx.net.online && asOf ? 'server' : 'local', asOf };
}
