import type { KioskHeartbeatRequest } from '../../../shared/schemas/kiosks.ts';
import type { CoreContext } from '../context.ts';
import { applyAnswer } from '../outbox/answers.ts';
import { attemptOperation, newOperation } from '../outbox/operations.ts';
import { countOpenAttention, countPendingOperations, oldestQueuedAt, operationById, replaceHeartbeat, type NewOperation } from '../outbox/store.ts';
import { readSetting } from '../settings-store.ts';
import type { SendDeps } from '../outbox/operations.ts';
import type { AnswerDeps } from '../outbox/answers.ts';

/** What a heartbeat reads and writes. */
export type HeartbeatDeps = Pick<CoreContext, 'clock' | 'db' | 'kioskId' | 'newId' | 'localNowMs' | 'timings'> & SendDeps & AnswerDeps;

/**
 * What the kiosk tells the server every KIOSK_HEARTBEAT_S (default 30 s): its gate, its queue
 * (size and oldest), its last sync, its needs-attention count and its own clock, uncorrected, so
 * the server sees the skew (the kiosk's recorded times use the corrected one).
 */
export function heartbeatBody(ctx: HeartbeatDeps, appVersion: string): KioskHeartbeatRequest {
  return {
    entry_point: ctx.link.settings!.entryPoint,
    app_version: appVersion,
    queued_operations: countPendingOperations(ctx.db),
    oldest_queued_at: oldestQueuedAt(ctx.db),
    last_sync_at: readSetting(ctx.db, 'last_sync_at') ?? null,
    needs_attention: countOpenAttention(ctx.db),
    clock: new Date(ctx.localNowMs()).toISOString(),
  };
}

/**
 * Queues this heartbeat in place of any earlier one: the outbox keeps only the latest (the
 * server wants the kiosk's state, not its history), and a heartbeat being sent right now is left
 * to finish. One transaction.
 */
export function queueHeartbeat(ctx: HeartbeatDeps, appVersion: string): NewOperation {
  const op = newOperation(ctx, ctx.clock.now(), {
    kind: 'heartbeat',
    pathParams: { kioskId: ctx.kioskId },
    body: { ...heartbeatBody(ctx, appVersion) },
    visitId: null,
    decisionId: null,
  });
  replaceHeartbeat(ctx.db, op, ctx.link.inFlight);
  return op;
}

/**
 * One beat: queued (replacing the last), and sent at once unless the link is known to be down;
 * then the sync's replay carries it when the link returns. What the server answers for good
 * (a refusal, a key without `access_codes:validate`) settles it quietly: a heartbeat is never a
 * guard's business, and never holds up the queue behind it.
 */
export async function beat(ctx: HeartbeatDeps, appVersion: string): Promise<'sent' | 'queued' | 'refused' | 'not_set_up'> {
  if (!ctx.link.settings || !ctx.link.api) return 'not_set_up';
  const queued = queueHeartbeat(ctx, appVersion);
  if (ctx.link.net.online === false) return 'queued';
  const op = operationById(ctx.db, queued.op_id);
  if (!op || op.state !== 'pending') return 'queued';
  return ctx.link.whileInFlight(op.op_id, async () => {
    const attempt = await attemptOperation(ctx, op, { timeoutMs: ctx.timings.requestTimeoutMs });
    if (!attempt.sent) return 'queued';
    const answer = attempt.answer;
    if (answer.kind === 'unavailable') return 'queued';
    applyAnswer(ctx, op, answer.kind === 'blocked' ? { kind: 'refused', status: answer.status, message: answer.message } : answer);
    return answer.kind === 'ok' ? 'sent' : 'refused';
  });
}
