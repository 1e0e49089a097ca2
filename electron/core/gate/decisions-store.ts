import type { ScanDecision } from '../../../shared/kiosk/calls.ts';
import type { KioskDb } from '../database.ts';

/**
 * The `decisions` table, and the only SQL on it: each scan's answer as the guard saw it, the
 * outbox operation that replays it, and what the server later said of it.
 */

/** What the server said of a decision made here: the same, admitted a visitor turned away here, or refused one admitted here. */
export type ServerOutcome = 'confirmed' | 'admitted_on_replay' | 'refused';

export function insertDecision(db: KioskDb, decision: ScanDecision, opId: string | null, serverOutcome: ServerOutcome | null = null): void {
  db.prepare(
    `INSERT INTO decisions (decision_id, scanned_at, code_id, admitted, decided_by, op_id, server_outcome, decision) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(decision.decisionId, decision.scannedAt, decision.codeId, decision.admitted ? 1 : 0, decision.decidedBy, opId, serverOutcome, JSON.stringify(decision));
}

export function decisionById(db: KioskDb, decisionId: string | null): ScanDecision | undefined {
  if (!decisionId) return undefined;
  const row = db.prepare('SELECT decision FROM decisions WHERE decision_id = ?').get(decisionId) as { decision: string } | undefined;
  return row ? (JSON.parse(row.decision) as ScanDecision) : undefined;
}

export function setServerOutcome(db: KioskDb, decisionId: string | null, outcome: ServerOutcome): void {
  db.prepare('UPDATE decisions SET server_outcome = ? WHERE decision_id = ?').run(outcome, decisionId);
}

/** The latest scans and their answers, newest first: the scan screen's "Recent", kept across a reload. */
export function recentDecisions(db: KioskDb, limit: number): ScanDecision[] {
  const rows = db.prepare('SELECT decision FROM decisions ORDER BY scanned_at DESC, rowid DESC LIMIT ?').all(limit) as Array<{ decision: string }>;
  return rows.map((row) => JSON.parse(row.decision) as ScanDecision);
}

/** Decisions scanned before the cut-off whose operation is no longer pending (retention); answers how many. */
export function pruneDecisions(db: KioskDb, before: string): number {
  return db
    .prepare(`DELETE FROM decisions WHERE scanned_at < ? AND (op_id IS NULL OR op_id NOT IN (SELECT op_id FROM outbox WHERE state = 'pending'))`)
    .run(before).changes;
}
