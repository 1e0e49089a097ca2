import { cachedCodeById, noteServerUse, settleLocalUse } from '../caches/codes.ts';
import type { CoreContext } from '../context.ts';
import { decisionById, setServerOutcome } from '../gate/decisions-store.ts';
import { rememberSite } from '../caches/site.ts';
import { recordTurnedAwayVisit, setVisitLogId, visitById } from '../gate/visits-store.ts';
import type { GateAnswer, ValidationAnswer } from './operations.ts';
import { reconcile, type FinalAnswer, type Known, type Write } from './reconcile.ts';
import { addAttention, dropPendingOperation, enqueueOperation, linkAttentionLog, settleOperation, type OutboxRow } from './store.ts';
import type { ServerAnswer } from '../link/server-api.ts';
import { recordFact } from '../peers/store.ts';

/** What applying an answer reads and writes: the database, the ids it makes, the gate's settings, the peers it tells. */
export type AnswerDeps = Pick<CoreContext, 'db' | 'kioskId' | 'newId' | 'nowIso' | 'link' | 'peers'>;

/**
 * Applies the server's final answer (2xx or a 4xx refusal) to an operation: what is known is
 * read, `reconcile` says what to write, and the writes are applied, all in one transaction with
 * the operation's settlement, so a kiosk switched off in between replays it and gets the same answer.
 */
export function applyAnswer(deps: AnswerDeps, op: OutboxRow, answer: Extract<ServerAnswer<GateAnswer>, { kind: 'ok' | 'refused' }>): void {
  settle(deps, op, answer.kind === 'ok' ? { kind: 'ok', status: answer.status, body: answer.body } : { kind: 'refused', status: answer.status, message: answer.message });
}

/** A check-in, walk-in or checkout that could not be sent at all (its check-in never reached the server). */
export function giveUp(deps: AnswerDeps, op: OutboxRow, message: string): void {
  settle(deps, op, { kind: 'refused', status: null, message });
}

function settle(deps: AnswerDeps, op: OutboxRow, answer: FinalAnswer): void {
  const { db } = deps;
  db.transaction(() => applyWrites(deps, reconcile(op, answer, readKnown(deps, op, answer))))();
  // What the server now knows (a use counted, a visit's log id) the other gates hear at once.
  deps.peers.announce();
}

function readKnown(deps: AnswerDeps, op: OutboxRow, answer: FinalAnswer): Known {
  const at = deps.nowIso();
  const now = new Date(at);
  const decision = decisionById(deps.db, op.decision_id);
  const result = op.kind === 'validate' && answer.kind === 'ok' ? (answer.body as ValidationAnswer) : undefined;
  const admittedId = result?.valid ? result.code_id : decision?.codeId;
  return {
    decision,
    visit: op.visit_id ? visitById(deps.db, op.visit_id) : undefined,
    code: admittedId ? cachedCodeById(deps.db, admittedId) : undefined,
    entryPoint: deps.link.settings?.entryPoint ?? null,
    kioskId: deps.kioskId,
    at,
    fresh: { opId: deps.newId('op', now), visitId: deps.newId('vis', now), attentionId: deps.newId('att', now) },
  };
}

/** In the caller's transaction. */
function applyWrites(deps: AnswerDeps, writes: Write[]): void {
  const { db } = deps;
  for (const write of writes) {
    switch (write.kind) {
      case 'settle':
        // Settled already (an earlier send's answer committed first): what follows was done then.
        if (!settleOperation(db, write.opId, { state: write.state, statusCode: write.statusCode, response: write.response, at: write.at })) return;
        break;
      case 'drop':
        dropPendingOperation(db, write.opId);
        break;
      case 'remember_site':
        rememberSite(deps, write.site);
        break;
      case 'visit_log_id':
        setVisitLogId(db, write.visitId, write.logId);
        recordFact(db, { kind: 'visit_log', visitId: write.visitId, kioskId: deps.kioskId, logId: write.logId, at: deps.nowIso() }, deps.nowIso());
        break;
      case 'attention_log':
        linkAttentionLog(db, write.followUpOpId, write.logId);
        break;
      case 'server_outcome':
        setServerOutcome(db, write.decisionId, write.outcome);
        break;
      case 'settle_local_use':
        settleLocalUse(db, write.codeId, { useCount: write.useCount, status: write.status });
        // The use leaves every gate's ledger, and the count the server gave enters every gate's cache.
        recordFact(db, { kind: 'settled', useId: write.useId, codeId: write.codeId, kioskId: deps.kioskId, useCount: cachedCodeById(db, write.codeId)?.use_count ?? write.useCount ?? 0, at: deps.nowIso() }, deps.nowIso());
        break;
      case 'server_use':
        noteServerUse(db, write.codeId, write.useCount);
        break;
      case 'turned_away_visit':
        recordTurnedAwayVisit(db, write.visit);
        break;
      case 'enqueue':
        enqueueOperation(db, write.op);
        break;
      case 'attention':
        addAttention(db, write.item);
        break;
    }
  }
}
