import type { KioskCallParsed, ScanDecision } from '../../../shared/kiosk/calls.ts';
import type { ValidationResult } from '../../../shared/schemas/access.ts';
import { addLocalUse, cachedCodeById, noteServerUse, rememberPass, type CachedCode } from '../caches/codes.ts';
import type { CoreContext } from '../context.ts';
import { alreadyInsideMessage, clockOf, decideOffline, decisionMessage, NO_PASS_KEYS_MESSAGE, reasonFromServer, type OfflineVerdict } from './decide-offline.ts';
import { insertDecision } from './decisions-store.ts';
import { attemptOperation, newOperation } from '../outbox/operations.ts';
import { enqueueOperation, operationById, settleOperation, type NewOperation } from '../outbox/store.ts';
import { insertVisit, openVisitOfCode } from './visits-store.ts';
import { siteIdOf } from '../caches/site.ts';
import { siteNameOf } from '../caches/pass-keys.ts';
import type { SendDeps } from '../outbox/operations.ts';
import { decideSharedUse, usedUpHere, type SharedUse } from '../peers/room.ts';
import { lastUseOf, openPeerVisitOfCode, recordFact } from '../peers/store.ts';
import type { UseFact } from '../peers/facts.ts';

/** What a scan reads and writes. */
export type ScanDeps = Pick<CoreContext, 'clock' | 'db' | 'guard' | 'link' | 'newId' | 'kioskId' | 'nowIso' | 'timings' | 'verifier' | 'peers'> & SendDeps;

/**
 * A scan, as a pipeline: the scan is made once (its ids, its time, its operation), sent to the
 * server when the link is up (the server decides, and the operation is in the outbox before
 * anything leaves), decided (a pure function of what the server said and what the kiosk
 * knows), and recorded: the decision, the operation's settlement, the visit and the code's
 * uses, in one transaction. Without an answer in time the kiosk decides from its cache and
 * the signed pass, and the outbox replays the scan, with the time it happened, when the
 * link returns.
 */
export async function scan(ctx: ScanDeps, input: KioskCallParsed<'scan'>): Promise<ScanDecision> {
  const made = makeScan(ctx, input);
  // Already inside, as the kiosk knows (its own visits, the server's list): decided before a use is spent, and nothing is sent.
  const inside = input.overrideAlreadyInside ? undefined : insideAlready(ctx, made);
  if (inside) return decideAndRecord(ctx, made, { kind: 'inside_here', inside }, null);
  if (!ctx.link.tryServerFirst() || spentHere(ctx, input.text, made.now)) return decideAndRecord(ctx, made, { kind: 'not_asked' }, await askPeers(ctx, made));
  enqueueOperation(ctx.db, made.op);
  // In flight until the decision is recorded, not merely answered: the sync loop leaves it alone meanwhile.
  return ctx.link.whileInFlight(made.op.op_id, async () => {
    const word = await askServer(ctx, made);
    return decideAndRecord(ctx, made, word, word.kind === 'no_decision' ? await askPeers(ctx, made) : null);
  });
}

/**
 * Decided here, the scan's use is decided with the gates this one hears (issue #49): by the pass's
 * owner among them. Null when there is no use to decide (the kiosk refuses the code itself).
 */
async function askPeers(ctx: ScanDeps, scan: Scan): Promise<SharedUse | null> {
  const verdict = decideOffline(ctx.db, ctx.verifier, scan.input.text, scan.now.getTime(), siteIdOf(ctx));
  if (!verdict.admitted || !verdict.code) return null;
  return decideSharedUse(ctx, useOf(ctx, scan, verdict.code), verdict.code);
}

/** The use an admission of this scan records, as the gates of the site hear it: its id is the scan's operation's. */
function useOf(ctx: ScanDeps, scan: Scan, code: { code_id: string; code: string }): UseFact {
  return { kind: 'use', useId: scan.op.op_id, codeId: code.code_id, code: code.code, kioskId: ctx.kioskId, gate: ctx.link.requireSettings().entryPoint, at: scan.now.toISOString() };
}

/** One scan: what was presented, when, and the ids and operation made for it once. */
interface Scan {
  input: KioskCallParsed<'scan'>;
  now: Date;
  decisionId: string;
  /** The visit a scan that admits opens. */
  visitId: string;
  /** The validation the outbox replays: written before the request leaves, or (offline) only when the scan admits. */
  op: NewOperation;
}

/** What the server said of a scan. */
type ServerWord =
  /** It decided (200): its result settles the operation. */
  | { kind: 'decided'; status: number; result: ValidationResult }
  /** It refused to decide (429, too many unknown codes): nothing happened there, nothing to replay. */
  | { kind: 'throttled'; message: string }
  /**
   * No decision: no answer in time, the key refused, or a 4xx for the scan as such. `reached`:
   * the request may have reached the server, so even a refusal here is replayed to learn the
   * truth; not sent at all (the key not yet proven non-admin), a refusal here is final.
   */
  | { kind: 'no_decision'; reached: boolean }
  /** Not asked: offline, or the code's last uses were granted here and the server has not heard yet. */
  | { kind: 'not_asked' }
  /** Held (409): the server knows the holder is inside; nothing was consumed there. */
  | { kind: 'held'; inside: OpenVisitSeen }
  /** Not asked: the kiosk knows the holder is inside (a visit open here, or in the server's list). */
  | { kind: 'inside_here'; inside: OpenVisitSeen };

/** The holder's open visit, as the server said it or the kiosk knows it. */
interface OpenVisitSeen {
  since: string;
  entryPoint: string | null;
  visitorName: string | null;
}

/** What the kiosk knows that the decision reads: the offline verdict, or the cached code the server admitted. */
interface Known {
  verdict: OfflineVerdict | null;
  cached: CachedCode | undefined;
  /** The estate the code is for, by name, when it is another's and the kiosk knows the name: the refusal says whose pass it is. */
  estate: string | null;
  /** A pass used up: its last use this kiosk heard of, at any gate of the site ("Used at Main gate, 10:42"). */
  lastUse: UseFact | null;
}

function makeScan(ctx: ScanDeps, input: KioskCallParsed<'scan'>): Scan {
  const settings = ctx.link.requireSettings();
  const now = ctx.clock.now();
  const decisionId = ctx.newId('dec', now);
  const visitId = ctx.newId('vis', now);
  const guard = ctx.guard();
  const siteId = siteIdOf(ctx);
  const op = newOperation(ctx, now, {
    kind: 'validate',
    body: {
      code: input.text,
      ...(guard ? { validated_by: guard.name } : {}),
      entry_point: settings.entryPoint,
      // The gate's site, once the server has named it: another site's code is refused there too.
      ...(siteId ? { site_id: siteId } : {}),
      scanned_at: now.toISOString(),
      // The server holds a scan whose holder is inside (409, nothing consumed), unless the guard let them in over it.
      already_inside: input.overrideAlreadyInside ? 'admit' : 'hold',
    },
    visitId,
    decisionId,
  });
  return { input, now, decisionId, visitId, op };
}

/**
 * The code's last uses were granted here offline and the server has not heard of them yet: it
 * would admit again. The kiosk refuses without asking.
 */
function spentHere(ctx: ScanDeps, text: string, now: Date): boolean {
  const verdict = decideOffline(ctx.db, ctx.verifier, text, now.getTime(), siteIdOf(ctx));
  const code = verdict.code;
  return verdict.reason === 'used_up' && code !== null && code.local_uses > 0 && code.use_count < code.max_uses;
}

/**
 * The holder of the scanned code inside already, as this kiosk knows, when the code would
 * otherwise admit here (a code that is refused is refused for its own reason first, as the server
 * orders them): a visit checked in here and not out, or one in the server's list.
 */
function insideAlready(ctx: ScanDeps, scan: Scan): OpenVisitSeen | undefined {
  const verdict = decideOffline(ctx.db, ctx.verifier, scan.input.text, scan.now.getTime(), siteIdOf(ctx));
  if (!verdict.admitted || !verdict.code) return undefined;
  if (usedUpHere(ctx.db, ctx.kioskId, verdict.code.code_id, verdict.code)) return undefined;
  const here = openVisitOfCode(ctx.db, verdict.code.code_id);
  if (here) return here;
  // Let in at another gate of the site, as its facts say (the server's list may not show it yet).
  const there = openPeerVisitOfCode(ctx.db, ctx.kioskId, verdict.code.code_id);
  return there ? { since: there.at, entryPoint: there.gate, visitorName: there.visitorName } : undefined;
}

/** Send: the queued validation, at once, with the short timeout a guard at the gate can wait. */
async function askServer(ctx: ScanDeps, scan: Scan): Promise<ServerWord> {
  const attempt = await attemptOperation(ctx, operationById(ctx.db, scan.op.op_id)!, { timeoutMs: ctx.timings.onlineDecisionTimeoutMs, markFirst: true });
  if (!attempt.sent) return { kind: 'no_decision', reached: false };
  const answer = attempt.answer;
  if (answer.kind === 'ok') return { kind: 'decided', status: answer.status, result: answer.body as ValidationResult };
  if (answer.kind === 'unavailable' && answer.status === 429 && /unknown code/i.test(answer.message)) return { kind: 'throttled', message: answer.message };
  if (answer.kind === 'refused' && answer.openVisit) {
    const open = answer.openVisit;
    return { kind: 'held', inside: { since: open.checked_in_at, entryPoint: open.entry_point, visitorName: open.visitor_name } };
  }
  return { kind: 'no_decision', reached: true };
}

function decideAndRecord(ctx: ScanDeps, scan: Scan, word: ServerWord, shared: SharedUse | null): ScanDecision {
  const known = readKnown(ctx, scan, word, shared);
  const decision = decide(scan, word, known);
  record(ctx, scan, word, known, decision);
  // The other gates of the site hear of it now (a use, a visit), not at the next sync.
  ctx.peers.announce();
  return decision;
}

/**
 * The reads the decision needs, after the server's word (the sync may have updated the cache
 * meanwhile) and the gates' (`shared`: a use the pass's owner refused is a pass used up here too).
 */
function readKnown(ctx: ScanDeps, scan: Scan, word: ServerWord, shared: SharedUse | null): Known {
  if (word.kind === 'throttled') return { verdict: null, cached: undefined, estate: null, lastUse: null };
  if (word.kind === 'decided' && word.result.valid) return { verdict: null, cached: cachedCodeById(ctx.db, word.result.code_id), estate: null, lastUse: null };
  // Held or known inside: the verdict only names the code and its visitor.
  let verdict = decideOffline(ctx.db, ctx.verifier, scan.input.text, scan.now.getTime(), siteIdOf(ctx));
  if (verdict.admitted && shared && !shared.admit) verdict = { ...verdict, admitted: false, reason: 'used_up' };
  const codeSite = verdict.code?.site_id;
  const lastUse = verdict.reason === 'used_up' && verdict.code ? ((shared && !shared.admit ? shared.lastUse : null) ?? lastUseOf(ctx.db, verdict.code.code_id) ?? null) : null;
  return { verdict, cached: undefined, estate: codeSite && codeSite !== siteIdOf(ctx) ? siteNameOf(ctx.db, codeSite) : null, lastUse };
}

/** Decide: what the guard is told, from the server's word and what the kiosk knows. Pure. */
function decide(scan: Scan, word: ServerWord, known: Known): ScanDecision {
  if (word.kind === 'throttled') return refusal(scan, 'too_many_attempts', 'server', null);
  if (word.kind === 'held' || word.kind === 'inside_here') {
    const code = known.verdict?.code ?? null;
    const refused = withDetails(refusal(scan, 'already_inside', word.kind === 'held' ? 'server' : 'offline', code?.code ?? null, code?.code_id ?? null), code);
    const name = refused.visitor?.name ?? word.inside.visitorName;
    const inside = { since: word.inside.since, entryPoint: word.inside.entryPoint };
    // A pass never synced here carries no name; the visit that holds it does.
    const visitor = refused.visitor ?? (name ? { name, phone: null } : null);
    return { ...refused, visitor, alreadyInside: inside, message: alreadyInsideMessage(name, inside) };
  }
  if (word.kind === 'decided') {
    const result = word.result;
    if (result.valid) {
      return {
        decisionId: scan.decisionId,
        admitted: true,
        decidedBy: 'server',
        reason: 'admitted',
        message: decisionMessage('admitted', result.visitor.name, 'server'),
        code: known.cached?.code ?? null,
        codeId: result.code_id,
        visitor: result.visitor,
        purpose: result.purpose,
        hostUserId: result.host_user_id,
        usesLeft: result.uses_remaining,
        validUntil: result.valid_until,
        visitId: scan.visitId,
        method: scan.input.method,
        scannedAt: scan.now.toISOString(),
        ...overrode(scan),
      };
    }
    // The server says only why; the kiosk may hold the code's details: whose pass, whose visitor.
    const code = known.verdict!.code;
    return withDetails(refusal(scan, reasonFromServer(result.reason), 'server', code?.code ?? null, code?.code_id ?? null, known.estate), code);
  }
  return offlineDecision(scan, known.verdict!, known.estate, known.lastUse);
}

/** Record: the decision and everything it changes, in one transaction. */
function record(ctx: ScanDeps, scan: Scan, word: ServerWord, known: Known, decision: ScanDecision): void {
  const db = ctx.db;
  const opId = scan.op.op_id;
  db.transaction(() => {
    if (word.kind === 'decided') {
      const result = word.result;
      settleOperation(db, opId, { state: 'done', statusCode: word.status, response: result, at: ctx.nowIso() });
      insertDecision(db, decision, opId, 'confirmed');
      if (!result.valid) return;
      if (known.cached) noteServerUse(db, result.code_id, known.cached.max_uses - result.uses_remaining);
      const admitted = { code_id: result.code_id, visitor_name: result.visitor.name, visitor_phone: result.visitor.phone, host_user_id: result.host_user_id };
      insertCodeVisit(ctx, scan, result.log_id, admitted);
      // The other gates learn the use already counted (and the count), and who is inside.
      const use = useOf(ctx, scan, { code_id: result.code_id, code: known.cached?.code ?? decision.code ?? result.code_id });
      recordFact(db, use, use.at);
      if (known.cached) recordFact(db, { kind: 'settled', useId: use.useId, codeId: use.codeId, kioskId: ctx.kioskId, useCount: known.cached.max_uses - result.uses_remaining, at: use.at }, use.at);
      recordVisitFact(ctx, scan, result.log_id, admitted);
      return;
    }
    if (word.kind === 'throttled') {
      settleOperation(db, opId, { state: 'withdrawn', statusCode: 429, response: { message: word.message }, at: scan.now.toISOString() });
      insertDecision(db, decision, opId);
      return;
    }
    // Nothing happened at the server (held) or nothing was sent (known here): no use, no visit, nothing to replay.
    if (word.kind === 'held') {
      settleOperation(db, opId, { state: 'withdrawn', statusCode: 409, response: { open_visit: word.inside }, at: ctx.nowIso() });
      insertDecision(db, decision, opId, 'confirmed');
      return;
    }
    if (word.kind === 'inside_here') {
      insertDecision(db, decision, null);
      return;
    }
    // Decided here. Asked and unanswered, the operation is queued already and stays for the sync
    // to settle (a 4xx lands in the attention list with the decision it contradicts), unless it
    // never left and the scan is refused. Not asked, it is queued only when the scan admits.
    const verdict = known.verdict!;
    let queuedOpId: string | null = word.kind === 'no_decision' ? opId : null;
    if (verdict.admitted && !queuedOpId) {
      enqueueOperation(db, scan.op);
      queuedOpId = opId;
    } else if (!verdict.admitted && word.kind === 'no_decision' && !word.reached) {
      settleOperation(db, opId, { state: 'withdrawn', statusCode: null, response: undefined, at: scan.now.toISOString() });
    }
    insertDecision(db, decision, queuedOpId);
    if (!verdict.admitted || !verdict.code) return;
    if (verdict.unseenPass) rememberPass(db, verdict.unseenPass, verdict.code.site_id, scan.now.toISOString());
    addLocalUse(db, verdict.code.code_id);
    insertCodeVisit(ctx, scan, null, verdict.code);
    const use = useOf(ctx, scan, verdict.code);
    recordFact(db, use, use.at);
    recordVisitFact(ctx, scan, null, verdict.code);
  })();
}

/** The visit as the other gates of the site hear it: on their "On premises", and "Already inside" there. */
function recordVisitFact(ctx: ScanDeps, scan: Scan, logId: string | null, code: { code_id: string; visitor_name: string | null; visitor_phone: string | null; host_user_id: string | null }): void {
  const at = scan.now.toISOString();
  recordFact(
    ctx.db,
    {
      kind: 'visit',
      visitId: scan.visitId,
      kioskId: ctx.kioskId,
      gate: ctx.link.requireSettings().entryPoint,
      method: 'code',
      codeId: code.code_id,
      visitorName: code.visitor_name,
      visitorPhone: code.visitor_phone,
      hostUserId: code.host_user_id,
      at,
    },
    at,
  );
  if (logId) recordFact(ctx.db, { kind: 'visit_log', visitId: scan.visitId, kioskId: ctx.kioskId, logId, at }, at);
}

/** A visit opened here by a code, admitted by the server (with its log id) or offline (log id to come). */
function insertCodeVisit(ctx: ScanDeps, scan: Scan, logId: string | null, code: { code_id: string; visitor_name: string | null; visitor_phone: string | null; host_user_id: string | null }): void {
  insertVisit(ctx.db, {
    visit_id: scan.visitId,
    log_id: logId,
    method: 'code',
    code_id: code.code_id,
    visitor_name: code.visitor_name,
    visitor_phone: code.visitor_phone,
    host_user_id: code.host_user_id,
    entry_point: ctx.link.requireSettings().entryPoint,
    checked_in_at: scan.now.toISOString(),
    checked_out_at: null,
    state: 'inside',
    origin: 'kiosk',
  });
}

function offlineDecision(scan: Scan, verdict: OfflineVerdict, estate: string | null, lastUse: UseFact | null): ScanDecision {
  const code = verdict.code;
  if (!verdict.admitted) {
    const refused = withDetails(refusal(scan, verdict.reason, 'offline', code?.code ?? null, code?.code_id ?? null, estate), code);
    if (verdict.noPassKeys) return { ...refused, message: NO_PASS_KEYS_MESSAGE };
    return lastUse ? { ...refused, message: `${refused.message} ${usedAtSentence(lastUse)}` } : refused;
  }
  return {
    decisionId: scan.decisionId,
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
    visitId: scan.visitId,
    method: scan.input.method,
    scannedAt: scan.now.toISOString(),
    ...overrode(scan),
  };
}

/** "Used at Main gate, 10:42.": where and when the pass was last used, at whichever gate of the site. */
export function usedAtSentence(use: Pick<UseFact, 'gate' | 'at'>): string {
  return `Used at ${use.gate}, ${clockOf(use.at)}.`;
}

/** An admission the guard made over "Already inside" says so (the check-in carries it to the server). */
function overrode(scan: Scan): Pick<ScanDecision, 'overrodeAlreadyInside'> {
  return scan.input.overrideAlreadyInside ? { overrodeAlreadyInside: true } : {};
}

/** A refusal names the visitor and the host when the kiosk knows them, so the guard can call the right person. */
function withDetails(decision: ScanDecision, code: OfflineVerdict['code']): ScanDecision {
  if (!code) return decision;
  return {
    ...decision,
    message: code.visitor_name ? `${code.visitor_name}: ${decision.message}` : decision.message,
    visitor: code.visitor_name || code.visitor_phone ? { name: code.visitor_name, phone: code.visitor_phone } : null,
    purpose: code.purpose,
    hostUserId: code.host_user_id,
  };
}

function refusal(
  scan: Scan,
  reason: ScanDecision['reason'],
  decidedBy: ScanDecision['decidedBy'],
  code: string | null,
  codeId: string | null = null,
  estate: string | null = null,
): ScanDecision {
  return {
    decisionId: scan.decisionId,
    admitted: false,
    decidedBy,
    reason,
    message: decisionMessage(reason, null, decidedBy, null, estate),
    ...(reason === 'other_site' && estate ? { estate } : {}),
    code,
    codeId,
    visitor: null,
    purpose: null,
    hostUserId: null,
    usesLeft: null,
    validUntil: null,
    visitId: null,
    method: scan.input.method,
    scannedAt: scan.now.toISOString(),
  };
}
