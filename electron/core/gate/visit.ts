import {
  KioskCallError,
  type CheckoutResult,
  type KioskCallParsed,
  type OnPremises,
  type WalkInResult,
} from '../../../shared/kiosk/calls.ts';
import type { CoreContext } from '../context.ts';
import { applyAnswer } from '../outbox/answers.ts';
import { attemptOperation, newOperation } from '../outbox/operations.ts';
import { enqueueOperation, operationById } from '../outbox/store.ts';
import { readSetting } from '../settings-store.ts';
import { insertVisit, markVisitOut, serverVisitorByLogId, toVisit, visitById, visitByLogId, visitorsOnPremises, type VisitRow } from './visits-store.ts';
import type { SendDeps } from '../outbox/operations.ts';
import type { AnswerDeps } from '../outbox/answers.ts';

/** What a walk-in, a check-out and "on premises" read and write. */
export type VisitDeps = Pick<CoreContext, 'clock' | 'db' | 'guard' | 'link' | 'newId' | 'kioskId' | 'timings'> & SendDeps & AnswerDeps;

/** A visitor without a code: saved, then sent at once when the link is up. */
export async function walkIn(ctx: VisitDeps, input: KioskCallParsed<'walkIn'>): Promise<WalkInResult> {
  const settings = ctx.link.requireSettings();
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
export async function checkout(ctx: VisitDeps, input: KioskCallParsed<'checkout'>): Promise<CheckoutResult> {
  ctx.link.requireSettings();
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
async function sendNow(ctx: VisitDeps, opId: string): Promise<boolean> {
  if (!ctx.link.tryServerFirst()) return false;
  return ctx.link.whileInFlight(opId, async () => {
    const attempt = await attemptOperation(ctx, operationById(ctx.db, opId)!, { timeoutMs: ctx.timings.onlineDecisionTimeoutMs, markFirst: true });
    if (!attempt.sent) return false;
    if (attempt.answer.kind === 'ok' || attempt.answer.kind === 'refused') {
      applyAnswer(ctx, operationById(ctx.db, opId)!, attempt.answer);
      return true;
    }
    return false;
  });
}

export function onPremises(ctx: VisitDeps, input: KioskCallParsed<'onPremises'>): OnPremises {
  const visitors = visitorsOnPremises(ctx.db, input.search);
  const asOf = readSetting(ctx.db, 'visitors_as_of') ?? null;
  // "N inside" is everyone inside, whatever the search shows.
  const total = input.search ? visitorsOnPremises(ctx.db, undefined).length : visitors.length;
  return { visitors, count: visitors.length, total, source: ctx.link.net.online && asOf ? 'server' : 'local', asOf };
}
