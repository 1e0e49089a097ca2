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
import { checkedOutElsewhere, openPeerVisit, openPeerVisits, recordFact, type PeerVisit } from '../peers/store.ts';
import type { Visit } from '../../../shared/kiosk/calls.ts';

/** What a walk-in, a check-out and "on premises" read and write. */
export type VisitDeps = Pick<CoreContext, 'clock' | 'db' | 'guard' | 'link' | 'newId' | 'kioskId' | 'timings' | 'peers'> & SendDeps & AnswerDeps;

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
    // The other gates of the site see the visitor on their "On premises" (issue #49).
    recordFact(
      ctx.db,
      {
        kind: 'visit',
        visitId: visit.visit_id,
        kioskId: ctx.kioskId,
        gate: settings.entryPoint,
        method: 'walk_in',
        codeId: null,
        visitorName: visit.visitor_name,
        visitorPhone: visit.visitor_phone,
        hostUserId: visit.host_user_id,
        at: visit.checked_in_at,
      },
      visit.checked_in_at,
    );
  })();
  ctx.peers.announce();
  const queued = !(await sendNow(ctx, op.op_id));
  return { visit: toVisit(visitById(ctx.db, visit.visit_id)!, queued), queued };
}

/** Checks a visitor out: one checked in here (even one still waiting to sync) or one from the organization's list. */
export async function checkout(ctx: VisitDeps, input: KioskCallParsed<'checkout'>): Promise<CheckoutResult> {
  ctx.link.requireSettings();
  const now = ctx.clock.now();
  const guard = ctx.guard();
  let visit = visitById(ctx.db, input.visitId) ?? visitByLogId(ctx.db, input.visitId);
  const atPeer = visit ? undefined : openPeerVisit(ctx.db, ctx.kioskId, input.visitId);
  // Let in at another gate that has not heard from the server since: that gate replays the check-out.
  if (atPeer && !atPeer.logId && !serverVisitorByLogId(ctx.db, input.visitId)) return checkoutForPeer(ctx, atPeer, input.notes ?? null, now);
  if (!visit && atPeer?.logId) visit = visitByLogId(ctx.db, atPeer.logId) ?? peerVisitRow(atPeer);
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
    recordCheckoutFact(ctx, atPeer?.visitId ?? v.visit_id, input.notes ?? null, now, false);
  })();
  ctx.peers.announce();
  const queued = !(await sendNow(ctx, op.op_id));
  return { visit: toVisit(visitById(ctx.db, v.visit_id)!, queued), checkedOutAt: now.toISOString(), queued };
}

/** A visit another gate recorded, as a row of this kiosk's: its log id is known, so this kiosk can close it on the server itself. */
function peerVisitRow(visit: PeerVisit): VisitRow {
  return {
    visit_id: visit.logId!,
    log_id: visit.logId,
    method: visit.method,
    code_id: visit.codeId,
    visitor_name: visit.visitorName,
    visitor_phone: visit.visitorPhone,
    host_user_id: visit.hostUserId,
    entry_point: visit.gate,
    checked_in_at: visit.at,
    checked_out_at: null,
    state: 'inside',
    origin: 'server',
  };
}

function recordCheckoutFact(ctx: VisitDeps, visitId: string, notes: string | null, now: Date, delegated: boolean): void {
  const at = now.toISOString();
  recordFact(ctx.db, { kind: 'checkout', visitId, kioskId: ctx.kioskId, gate: ctx.link.requireSettings().entryPoint, by: ctx.guard()?.name ?? null, notes, delegated, at }, at);
}

/**
 * The check-out of a visitor let in at another gate whose check-in the server has not heard of:
 * only that gate can name the visit to the server, so the check-out is a fact the gates share, and
 * that gate queues it (peers/room.ts). Everyone's "On premises" stops showing the visitor now.
 */
function checkoutForPeer(ctx: VisitDeps, visit: PeerVisit, notes: string | null, now: Date): CheckoutResult {
  ctx.db.transaction(() => recordCheckoutFact(ctx, visit.visitId, notes, now, true))();
  ctx.peers.announce();
  return { visit: { ...peerVisitView(visit), pendingSync: true }, checkedOutAt: now.toISOString(), queued: true };
}

function peerVisitView(visit: PeerVisit): Visit {
  return {
    visitId: visit.visitId,
    logId: visit.logId,
    method: visit.method,
    visitorName: visit.visitorName,
    visitorPhone: visit.visitorPhone,
    hostUserId: visit.hostUserId,
    entryPoint: visit.gate,
    checkedInAt: visit.at,
    pendingSync: !visit.logId,
  };
}

function matches(search: string | undefined, visit: Visit): boolean {
  if (!search) return true;
  const needle = search.toLowerCase();
  return [visit.visitorName, visit.visitorPhone, visit.hostUserId].some((field) => field?.toLowerCase().includes(needle));
}

/**
 * Everyone on the site, as this kiosk best knows (issue #49): its own list (the server's as last
 * fetched and its own visits), less those checked out at other gates, plus the visitors other
 * gates let in that the list does not show yet. Longest on premises first.
 */
function everyoneOnPremises(ctx: VisitDeps, search: string | undefined): Visit[] {
  const gone = checkedOutElsewhere(ctx.db, ctx.kioskId);
  const visitors = visitorsOnPremises(ctx.db, search).filter((visit) => !gone.has(visit.visitId) && !(visit.logId && gone.has(visit.logId)));
  const shown = new Set(visitors.flatMap((visit) => (visit.logId ? [visit.visitId, visit.logId] : [visit.visitId])));
  // A fresh list from the server is the truth for visits it knows: one it no longer lists has left.
  const serverFresh = ctx.link.net.online === true && readSetting(ctx.db, 'visitors_as_of') !== undefined;
  for (const visit of openPeerVisits(ctx.db, ctx.kioskId)) {
    if (shown.has(visit.visitId) || (visit.logId && shown.has(visit.logId))) continue;
    if (visit.logId && serverFresh && !serverVisitorByLogId(ctx.db, visit.logId)) continue;
    const view = peerVisitView(visit);
    if (matches(search, view)) visitors.push(view);
  }
  return visitors.sort((a, b) => a.checkedInAt.localeCompare(b.checkedInAt));
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
  const visitors = everyoneOnPremises(ctx, input.search);
  const asOf = readSetting(ctx.db, 'visitors_as_of') ?? null;
  // "N inside" is everyone inside, whatever the search shows.
  const total = input.search ? everyoneOnPremises(ctx, undefined).length : visitors.length;
  return { visitors, count: visitors.length, total, source: ctx.link.net.online && asOf ? 'server' : 'local', asOf };
}
