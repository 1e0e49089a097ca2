import type { GateOperationKind } from '../../../shared/kiosk/gate-operations.ts';
import type { AttentionItem } from '../../../shared/kiosk/calls.ts';
import type { KioskDb } from '../database.ts';

/** The outbox holds the gate's operations (shared/kiosk/gate-operations.ts). */
export type OperationKind = GateOperationKind;

export interface OutboxRow {
  seq: number;
  op_id: string;
  kind: OperationKind;
  idempotency_key: string;
  method: string;
  path: string | null;
  /** The exact JSON sent on every attempt: the server's Idempotency-Key check compares bodies. */
  body: string;
  visit_id: string | null;
  decision_id: string | null;
  state: 'pending' | 'done' | 'refused' | 'withdrawn';
  /** A column of the first schema, no longer written or read. */
  attempted: number;
  attempts: number;
  last_error: string | null;
  created_at: string;
}

/** What an operation is when it is queued; the rest of its row is the outbox's bookkeeping. */
export type NewOperation = Pick<OutboxRow, 'op_id' | 'kind' | 'idempotency_key' | 'method' | 'path' | 'body' | 'visit_id' | 'decision_id' | 'created_at'>;

export function enqueueOperation(db: KioskDb, op: NewOperation): void {
  db.prepare(`
    INSERT INTO outbox (op_id, kind, idempotency_key, method, path, body, visit_id, decision_id, state, created_at)
    VALUES (@op_id, @kind, @idempotency_key, @method, @path, @body, @visit_id, @decision_id, 'pending', @created_at)`).run(op);
}

export function operationById(db: KioskDb, opId: string): OutboxRow | undefined {
  return db.prepare('SELECT * FROM outbox WHERE op_id = ?').get(opId) as OutboxRow | undefined;
}

/** Pending operations in the order they happened, after `afterSeq`. */
export function pendingOperations(db: KioskDb, afterSeq: number, limit: number): OutboxRow[] {
  return db.prepare(`SELECT * FROM outbox WHERE state = 'pending' AND seq > ? ORDER BY seq LIMIT ?`).all(afterSeq, limit) as OutboxRow[];
}

/**
 * What waits to reach the server: queued operations and any SOS not yet sent (the guard's
 * "waiting to send"). The heartbeat is not counted: it reports this number, is replaced every
 * beat, and must not keep a kiosk from moving to another server.
 */
export function countPendingOperations(db: KioskDb): number {
  const row = db
    .prepare(`SELECT (SELECT count(*) FROM outbox WHERE state = 'pending' AND kind <> 'heartbeat') + (SELECT count(*) FROM panics WHERE state = 'pending') AS n`)
    .get() as { n: number };
  return row.n;
}

/** How many other operations of the operation's visit wait to be sent: a checkout waits for its check-in. */
export function othersPendingForVisit(db: KioskDb, op: Pick<OutboxRow, 'op_id' | 'visit_id'>): number {
  return (db.prepare(`SELECT count(*) AS n FROM outbox WHERE state = 'pending' AND visit_id = ? AND op_id <> ?`).get(op.visit_id, op.op_id) as { n: number }).n;
}

/** The walk-in or check-in still pending that opens the operation's visit: a batched checkout names it (`log_of`). */
export function pendingOpenerOf(db: KioskDb, op: Pick<OutboxRow, 'op_id' | 'visit_id'>): string | undefined {
  const row = db
    .prepare(`SELECT idempotency_key FROM outbox WHERE state = 'pending' AND visit_id = ? AND op_id <> ? AND kind IN ('walk_in', 'validate') ORDER BY seq DESC LIMIT 1`)
    .get(op.visit_id, op.op_id) as { idempotency_key: string } | undefined;
  return row?.idempotency_key;
}

/** When the oldest operation (or SOS) still waiting to reach the server happened. */
export function oldestQueuedAt(db: KioskDb): string | null {
  const row = db
    .prepare(
      `SELECT min(at) AS at FROM (
         SELECT min(created_at) AS at FROM outbox WHERE state = 'pending' AND kind <> 'heartbeat'
         UNION ALL SELECT min(pressed_at) FROM panics WHERE state = 'pending')`,
    )
    .get() as { at: string | null };
  return row.at;
}

/** The heartbeat in place of any earlier one, except those a request is out for right now. One transaction. */
export function replaceHeartbeat(db: KioskDb, op: NewOperation, inFlight: Iterable<string>): void {
  db.transaction(() => {
    db.prepare(`DELETE FROM outbox WHERE kind = 'heartbeat' AND op_id NOT IN (SELECT value FROM json_each(?))`).run(JSON.stringify([...inFlight]));
    enqueueOperation(db, op);
  })();
}

/** Before a request for it leaves: counts the attempt, and keeps the checkout's path once its visit has a log_id. */
export function markAttempted(db: KioskDb, opId: string, path: string | null): void {
  db.prepare('UPDATE outbox SET attempts = attempts + 1, path = COALESCE(?, path) WHERE op_id = ?').run(path, opId);
}

export function noteFailure(db: KioskDb, opId: string, message: string): void {
  db.prepare('UPDATE outbox SET last_error = ? WHERE op_id = ?').run(message, opId);
}

/** Settles a pending operation; false when it was settled already (another send got there first): then nothing changed. */
export function settleOperation(
  db: KioskDb,
  opId: string,
  outcome: { state: 'done' | 'refused' | 'withdrawn'; statusCode: number | null; response: unknown; at: string },
): boolean {
  return db.prepare(`UPDATE outbox SET state = ?, status_code = ?, response = ?, settled_at = ?, last_error = NULL WHERE op_id = ? AND state = 'pending'`).run(
    outcome.state,
    outcome.statusCode,
    outcome.response === undefined ? null : JSON.stringify(outcome.response),
    outcome.at,
    opId,
  ).changes > 0;
}

/** Removes an operation not worth a journal entry once answered (a heartbeat); false when it was gone or settled already. */
export function dropPendingOperation(db: KioskDb, opId: string): boolean {
  return db.prepare(`DELETE FROM outbox WHERE op_id = ? AND state = 'pending'`).run(opId).changes > 0;
}

// ---------- Needs attention ----------

export interface NewAttention {
  attention_id: string;
  kind: AttentionItem['kind'];
  operation: AttentionItem['operation'];
  message: string;
  server_message: string;
  visitor_name: string | null;
  code: string | null;
  happened_at: string;
  log_id: string | null;
  op_id: string | null;
  follow_up_op_id: string | null;
  created_at: string;
}

export function addAttention(db: KioskDb, item: NewAttention): void {
  db.prepare(`
    INSERT INTO attention (attention_id, kind, operation, message, server_message, visitor_name, code, happened_at, log_id, op_id, follow_up_op_id, created_at)
    VALUES (@attention_id, @kind, @operation, @message, @server_message, @visitor_name, @code, @happened_at, @log_id, @op_id, @follow_up_op_id, @created_at)`).run(item);
}

export function openAttention(db: KioskDb, limit: number): AttentionItem[] {
  const rows = db
    .prepare('SELECT * FROM attention WHERE dismissed_at IS NULL ORDER BY created_at DESC, attention_id DESC LIMIT ?')
    .all(limit) as Array<NewAttention>;
  return rows.map((row) => ({
    attentionId: row.attention_id,
    kind: row.kind,
    operation: row.operation,
    message: row.message,
    serverMessage: row.server_message,
    visitorName: row.visitor_name,
    code: row.code,
    happenedAt: row.happened_at,
    logId: row.log_id,
    createdAt: row.created_at,
  }));
}

export function countOpenAttention(db: KioskDb): number {
  return (db.prepare('SELECT count(*) AS n FROM attention WHERE dismissed_at IS NULL').get() as { n: number }).n;
}

export function dismissAttention(db: KioskDb, attentionId: string, at: string): boolean {
  return db.prepare('UPDATE attention SET dismissed_at = ? WHERE attention_id = ? AND dismissed_at IS NULL').run(at, attentionId).changes > 0;
}

/** The follow-up walk-in reached the server: the attention item names the record it keeps. */
export function linkAttentionLog(db: KioskDb, followUpOpId: string, logId: string): void {
  db.prepare('UPDATE attention SET log_id = ? WHERE follow_up_op_id = ?').run(logId, followUpOpId);
}

/** Retention: settled operations older than the cut-off; answers how many. */
export function pruneSettledOperations(db: KioskDb, before: string): number {
  return db.prepare(`DELETE FROM outbox WHERE state <> 'pending' AND settled_at < ?`).run(before).changes;
}

/** Retention: attention items dismissed before the cut-off; answers how many. */
export function pruneDismissedAttention(db: KioskDb, before: string): number {
  return db.prepare(`DELETE FROM attention WHERE dismissed_at IS NOT NULL AND dismissed_at < ?`).run(before).changes;
}
