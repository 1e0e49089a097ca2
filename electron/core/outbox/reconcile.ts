import type { ScanDecision } from '../../../shared/kiosk/calls.ts';
import { GATE_OPERATIONS, withinKioskReplayWindow } from '../../../shared/kiosk/gate-operations.ts';
import type { CachedCode } from '../caches/codes.ts';
import { reasonFromServer } from '../gate/decide-offline.ts';
import type { ServerOutcome } from '../gate/decisions-store.ts';
import type { KioskSite } from '../caches/site.ts';
import type { VisitRow } from '../gate/visits-store.ts';
import type { AnswerOf } from '../link/server-api.ts';
import { makeOperation, type GateAnswer, type ValidationAnswer } from './operations.ts';
import type { NewAttention, NewOperation, OutboxRow } from './store.ts';

/**
 * Applying the server's final answer to an operation, as a pure step: `reconcile(op, answer,
 * known)` says what to write, and `applyAnswer` (answers.ts) reads what is known and applies the
 * writes in one transaction. The first write of an operation that is settled here is its
 * settlement; when another send settled it first, nothing after it is applied.
 */

/** The server's final word on an operation: applied (2xx) or refused for good (4xx; no status when it could not be sent at all). */
export type FinalAnswer = { kind: 'ok'; status: number; body: GateAnswer } | { kind: 'refused'; status: number | null; message: string };

/** What the kiosk knows that the reconciliation reads, and the ids it may need for what it adds. */
export interface Known {
  /** The scan the operation replays (validate), as the guard saw it. */
  decision: ScanDecision | undefined;
  /** The visit the operation opens or closes. */
  visit: VisitRow | undefined;
  /** The code as cached: the one the server admitted, or else the decision's. */
  code: CachedCode | undefined;
  /** The gate's entry point, for what the kiosk records in its name. */
  entryPoint: string | null;
  kioskId: string;
  at: string;
  /** Ids made beforehand, used at most once each: a follow-up operation, a visit, an attention item. */
  fresh: { opId: string; visitId: string; attentionId: string };
}

export type Write =
  /** Settles the pending operation; when it was settled already, the writes after it are skipped. */
  | { kind: 'settle'; opId: string; state: 'done' | 'refused'; statusCode: number | null; response: unknown; at: string }
  | { kind: 'drop'; opId: string }
  | { kind: 'remember_site'; site: KioskSite | null | undefined }
  | { kind: 'visit_log_id'; visitId: string; logId: string }
  | { kind: 'attention_log'; followUpOpId: string; logId: string }
  | { kind: 'server_outcome'; decisionId: string | null; outcome: ServerOutcome }
  /** `useId`: the admission's operation, as the gates of the site know the use (peers/facts.ts). */
  | { kind: 'settle_local_use'; useId: string; codeId: string; useCount?: number; status?: string }
  | { kind: 'server_use'; codeId: string; useCount: number }
  | { kind: 'turned_away_visit'; visit: VisitRow }
  | { kind: 'enqueue'; op: NewOperation }
  | { kind: 'attention'; item: NewAttention };

export function reconcile(op: OutboxRow, answer: FinalAnswer, known: Known): Write[] {
  // A heartbeat answered, accepted or not, is done with: it is not kept in the journal, and a
  // refusal is no guard's business; the next one replaces it (link/heartbeat.ts). The answer
  // names the kiosk's site and its call list: the numbers its SOS screen shows.
  if (op.kind === 'heartbeat') {
    const site = answer.kind === 'ok' ? (answer.body as AnswerOf<'put', '/kiosks/{kioskId}/heartbeat'>).site : undefined;
    return [{ kind: 'drop', opId: op.op_id }, ...(answer.kind === 'ok' ? [{ kind: 'remember_site' as const, site }] : [])];
  }
  if (answer.kind === 'refused') {
    const response = { message: answer.message };
    return [{ kind: 'settle', opId: op.op_id, state: 'refused', statusCode: answer.status, response, at: known.at }, ...refusedForGood(op, answer.message, known)];
  }
  const settle: Write = { kind: 'settle', opId: op.op_id, state: 'done', statusCode: answer.status, response: answer.body, at: known.at };
  // The body is the answer of the operation's own kind (a validation's or a visit's).
  if (op.kind === 'validate') return [settle, ...validationWrites(op, answer.body as ValidationAnswer, known)];
  if (op.kind === 'walk_in') {
    const logId = (answer.body as AnswerOf<'post', '/access-logs'>).access_log?.log_id;
    if (!logId) return [settle];
    return [settle, ...(op.visit_id ? [{ kind: 'visit_log_id' as const, visitId: op.visit_id, logId }] : []), { kind: 'attention_log', followUpOpId: op.op_id, logId }];
  }
  return [settle];
}

function refusedForGood(op: OutboxRow, serverMessage: string, known: Known): Write[] {
  const operation = op.kind;
  // Never a guard's business: a heartbeat is dropped once answered and never given up on.
  if (operation === 'heartbeat') return [];
  const { decision, visit } = known;
  const body = JSON.parse(op.body) as Record<string, string | undefined>;
  const name = decision?.visitor?.name ?? visit?.visitor_name ?? body.visitor_name ?? null;
  const described = GATE_OPERATIONS[op.kind].described;
  const what = op.kind === 'validate' ? `${described} of ${decision?.code ?? 'a code'}${name ? ` (${name})` : ''}` : `${described} of ${name ?? 'a visitor'}`;
  const writes: Write[] = [];
  // Only an admission decided here offline added a local use; any other refusal has none to settle.
  if (op.kind === 'validate' && decision?.codeId && decision.admitted && decision.decidedBy === 'offline') writes.push({ kind: 'settle_local_use', useId: op.op_id, codeId: decision.codeId });
  // A visitor let in offline is inside whatever the server thinks of the scan: keep their visit.
  const followUp = op.kind === 'validate' && decision?.admitted ? admissionAsWalkIn(op, decision, serverMessage, known) : null;
  if (followUp) writes.push({ kind: 'enqueue', op: followUp });
  writes.push({
    kind: 'attention',
    item: {
      attention_id: known.fresh.attentionId,
      kind: 'operation_refused',
      operation,
      message: `${what} was not accepted by the server: ${serverMessage}`,
      server_message: serverMessage,
      visitor_name: name,
      code: decision?.code ?? null,
      happened_at: op.created_at,
      log_id: visit?.log_id ?? null,
      op_id: op.op_id,
      follow_up_op_id: followUp?.op_id ?? null,
      created_at: known.at,
    },
  });
  return writes;
}

/**
 * A walk-in for a visitor admitted here offline whose scan the server did not accept, so the
 * server keeps a record of who is inside (and a later checkout has a visit to close).
 */
function admissionAsWalkIn(op: OutboxRow, decision: ScanDecision, serverSaid: string, known: Known): NewOperation {
  const { scanned_at: scannedAt, validated_by: validatedBy } = JSON.parse(op.body) as { scanned_at: string; validated_by?: string };
  return makeOperation(known.kioskId, known.fresh.opId, new Date(known.at), {
    kind: 'walk_in',
    body: {
      visitor_name: decision.visitor?.name ?? `Visitor with code ${decision.code ?? 'unknown'}`,
      visitor_phone: known.visit?.visitor_phone ?? decision.visitor?.phone ?? 'unknown',
      ...(known.entryPoint ? { entry_point: known.entryPoint } : {}),
      ...(decision.hostUserId ? { host_user_id: decision.hostUserId } : {}),
      notes: `Admitted offline at ${scannedAt} with code ${decision.code ?? '?'}; the server refused it on sync: ${serverSaid}`.slice(0, 2000),
      // The excess use, said in fields: the server raises visitor.excess_use and the console warns.
      admitted_offline: { code: (decision.code ?? 'unknown').slice(0, 64), scanned_at: scannedAt, server_said: serverSaid.slice(0, 500) || 'refused' },
      ...(validatedBy ? { recorded_by: validatedBy } : {}),
      // Within the server's replay window (less the kiosk's margin) it keeps its own time; an older one is recorded now, its time in the notes.
      ...(withinKioskReplayWindow(scannedAt, known.at) ? { checked_in_at: scannedAt } : {}),
    },
    visitId: op.visit_id,
    decisionId: op.decision_id,
  });
}

/** A replayed scan: confirm it, or reconcile what the gate did with what the server decided. */
function validationWrites(op: OutboxRow, result: ValidationAnswer, known: Known): Write[] {
  const { decision, code: cached, at } = known;
  const outcome = (value: ServerOutcome): Write => ({ kind: 'server_outcome', decisionId: op.decision_id, outcome: value });
  const scannedAt = (JSON.parse(op.body) as { scanned_at: string }).scanned_at;

  if (result.valid) {
    const useCount = cached ? cached.max_uses - result.uses_remaining : undefined;
    if (decision?.admitted) {
      return [
        outcome('confirmed'),
        ...(op.visit_id ? [{ kind: 'visit_log_id' as const, visitId: op.visit_id, logId: result.log_id }] : []),
        ...(decision.decidedBy === 'offline' ? [{ kind: 'settle_local_use' as const, useId: op.op_id, codeId: result.code_id, ...(useCount === undefined ? {} : { useCount }) }] : []),
      ];
    }
    // Turned away here (offline, or the kiosk stopped before it could answer), admitted there:
    // the server must not count them inside.
    const visitId = op.visit_id ?? known.fresh.visitId;
    const checkout = makeOperation(known.kioskId, known.fresh.opId, new Date(at), {
      kind: 'checkout',
      pathParams: { logId: result.log_id },
      body: { checkout_notes: 'Turned away at the gate: the kiosk refused this scan while offline', checked_out_at: at },
      visitId,
      decisionId: op.decision_id,
    });
    return [
      outcome('admitted_on_replay'),
      {
        kind: 'turned_away_visit',
        visit: {
          visit_id: visitId,
          log_id: result.log_id,
          method: 'code',
          code_id: result.code_id,
          visitor_name: result.visitor.name,
          visitor_phone: result.visitor.phone,
          host_user_id: result.host_user_id,
          entry_point: known.entryPoint,
          checked_in_at: scannedAt,
          checked_out_at: null,
          state: 'turned_away',
          origin: 'kiosk',
        },
      },
      ...(useCount !== undefined ? [{ kind: 'server_use' as const, codeId: result.code_id, useCount }] : []),
      { kind: 'enqueue', op: checkout },
      {
        kind: 'attention',
        item: {
          attention_id: known.fresh.attentionId,
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
        },
      },
    ];
  }

  if (!decision?.admitted) return [outcome('confirmed')];
  // Admitted here offline, refused there: the visitor is inside. Say so, and record the visit
  // as a walk-in so the server keeps it (and the checkout that may follow has a log to close).
  const reason = reasonFromServer(result.reason);
  const writes: Write[] = [outcome('refused')];
  if (decision.codeId) {
    writes.push({
      kind: 'settle_local_use',
      useId: op.op_id,
      codeId: decision.codeId,
      ...(reason === 'used_up' && cached ? { useCount: cached.max_uses } : {}),
      ...(reason === 'revoked' ? { status: 'revoked' } : {}),
    });
  }
  const name = decision.visitor?.name ?? null;
  const walkIn = admissionAsWalkIn(op, decision, result.reason, known);
  writes.push(
    { kind: 'enqueue', op: walkIn },
    {
      kind: 'attention',
      item: {
        attention_id: known.fresh.attentionId,
        kind: 'admission_refused',
        operation: 'validate',
        message: `${name ?? 'A visitor'} was admitted offline with ${decision.code ?? 'a code'}, but the server says: ${result.reason}. The visit is recorded as a walk-in; check with the host.`,
        server_message: result.reason,
        visitor_name: name,
        code: decision.code,
        happened_at: scannedAt,
        log_id: null,
        op_id: op.op_id,
        follow_up_op_id: walkIn.op_id,
        created_at: at,
      },
    },
  );
  return writes;
}
