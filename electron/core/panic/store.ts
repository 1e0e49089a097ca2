import type { PanicStatus } from '../../../shared/kiosk/calls.ts';
import type { KioskDb } from '../database.ts';

/** The tables `panics`, `panic_presses` and `panic_reports`, and the only SQL on them. */

export interface PanicRow {
  panic_id: string;
  pressed_at: string;
  idempotency_key: string;
  body: string;
  state: 'pending' | 'sent' | 'refused';
  attempts: number;
  last_error: string | null;
  next_attempt_at: string | null;
  incident_id: string | null;
  incident_status: string | null;
  responder: string | null;
  updated_at: string;
  /** Set when the kiosk stopped following the incident: its poll answered 403/404, or the kiosk moved. */
  closed_at: string | null;
}

export interface PanicReportRow {
  report_id: string;
  panic_id: string;
  report: 'called_for_help' | 'false_alarm';
  guard: string | null;
  reported_at: string;
  state: 'pending' | 'sent' | 'refused';
  attempts: number;
  last_error: string | null;
  updated_at: string;
}

/** A sent SOS the kiosk still follows: its incident not over as far as the kiosk knows. */
const FOLLOWED = `state = 'sent' AND closed_at IS NULL AND (incident_status IS NULL OR incident_status NOT IN ('resolved', 'cancelled'))`;

export function panicById(db: KioskDb, panicId: string): PanicRow | undefined {
  return db.prepare('SELECT * FROM panics WHERE panic_id = ?').get(panicId) as PanicRow | undefined;
}

/** The SOS shown as under way: not yet acknowledged, or acknowledged and its incident followed and not over. */
export function activePanic(db: KioskDb): PanicRow | undefined {
  return db.prepare(`SELECT * FROM panics WHERE state = 'pending' OR (${FOLLOWED}) ORDER BY pressed_at DESC LIMIT 1`).get() as PanicRow | undefined;
}

/** The SOS a new press joins: one not sent yet, or one sent and first pressed since `since`. */
export function joinablePanic(db: KioskDb, since: string): PanicRow | undefined {
  return db.prepare(`SELECT * FROM panics WHERE state = 'pending' OR (${FOLLOWED} AND pressed_at >= ?) ORDER BY pressed_at DESC LIMIT 1`).get(since) as PanicRow | undefined;
}

export function latestPanic(db: KioskDb): PanicRow | undefined {
  return db.prepare('SELECT * FROM panics ORDER BY pressed_at DESC LIMIT 1').get() as PanicRow | undefined;
}

export function firstPressOf(db: KioskDb, panicId: string): { press_id: string; pressed_at: string } {
  return db.prepare('SELECT press_id, pressed_at FROM panic_presses WHERE panic_id = ? ORDER BY pressed_at, rowid LIMIT 1').get(panicId) as {
    press_id: string;
    pressed_at: string;
  };
}

export function pressById(db: KioskDb, pressId: string): { panic_id: string; pressed_at: string } | undefined {
  return db.prepare('SELECT panic_id, pressed_at FROM panic_presses WHERE press_id = ?').get(pressId) as { panic_id: string; pressed_at: string } | undefined;
}

export function insertPress(db: KioskDb, pressId: string, panicId: string, at: string): void {
  db.prepare('INSERT INTO panic_presses (press_id, panic_id, pressed_at) VALUES (?, ?, ?)').run(pressId, panicId, at);
}

export function insertPanic(db: KioskDb, panic: { panicId: string; pressedAt: string; idempotencyKey: string; body: string }): void {
  db.prepare(`INSERT INTO panics (panic_id, pressed_at, idempotency_key, body, state, next_attempt_at, updated_at) VALUES (?, ?, ?, ?, 'pending', ?, ?)`).run(
    panic.panicId,
    panic.pressedAt,
    panic.idempotencyKey,
    panic.body,
    panic.pressedAt,
    panic.pressedAt,
  );
}

/** The kiosk moved to another server or key: it stops following the incidents it sent. */
export function closeFollowedPanics(db: KioskDb, at: string): void {
  db.prepare(`UPDATE panics SET closed_at = ?, updated_at = ? WHERE ${FOLLOWED}`).run(at, at);
}

export function closePanic(db: KioskDb, panicId: string, at: string): void {
  db.prepare('UPDATE panics SET closed_at = ?, updated_at = ? WHERE panic_id = ?').run(at, at, panicId);
}

export function hasUnsentPanic(db: KioskDb): boolean {
  return db.prepare(`SELECT 1 FROM panics WHERE state = 'pending' LIMIT 1`).get() !== undefined;
}

export function unsentPanics(db: KioskDb): PanicRow[] {
  return db.prepare(`SELECT * FROM panics WHERE state = 'pending' ORDER BY pressed_at`).all() as PanicRow[];
}

export function followedIncidents(db: KioskDb): PanicRow[] {
  return db.prepare(`SELECT * FROM panics WHERE ${FOLLOWED} AND incident_id IS NOT NULL`).all() as PanicRow[];
}

export function countPanicAttempt(db: KioskDb, panicId: string): void {
  db.prepare('UPDATE panics SET attempts = attempts + 1 WHERE panic_id = ?').run(panicId);
}

export function markPanicSent(db: KioskDb, panicId: string): void {
  db.prepare(`UPDATE panics SET state = 'sent', last_error = NULL, next_attempt_at = NULL WHERE panic_id = ?`).run(panicId);
}

export function markPanicRefused(db: KioskDb, panicId: string, message: string, at: string): void {
  db.prepare(`UPDATE panics SET state = 'refused', last_error = ?, updated_at = ? WHERE panic_id = ?`).run(message, at, panicId);
}

export function notePanicFailure(db: KioskDb, panicId: string, message: string, nextAttemptAt: string, at: string): void {
  db.prepare('UPDATE panics SET last_error = ?, next_attempt_at = ?, updated_at = ? WHERE panic_id = ?').run(message, nextAttemptAt, at, panicId);
}

export function panicResponder(db: KioskDb, panicId: string): string | null {
  const row = db.prepare('SELECT responder FROM panics WHERE panic_id = ?').get(panicId) as { responder: string | null } | undefined;
  return row?.responder ?? null;
}

export function setIncident(db: KioskDb, panicId: string, incident: { incidentId: string; status: string; responder: string | null }, at: string): void {
  db.prepare('UPDATE panics SET incident_id = ?, incident_status = ?, responder = ?, updated_at = ? WHERE panic_id = ?').run(
    incident.incidentId,
    incident.status,
    incident.responder,
    at,
    panicId,
  );
}

export function reportsOf(db: KioskDb, panicId: string): PanicStatus['reports'] {
  const rows = db.prepare('SELECT report, reported_at, state FROM panic_reports WHERE panic_id = ? ORDER BY reported_at').all(panicId) as PanicReportRow[];
  return rows.map((row) => ({ report: row.report, at: row.reported_at, delivery: row.state === 'pending' ? 'waiting' : row.state }));
}

/** Saying it again changes nothing. */
export function insertReport(db: KioskDb, report: { reportId: string; panicId: string; report: PanicReportRow['report']; guard: string | null; at: string }): void {
  db.prepare(
    `INSERT INTO panic_reports (report_id, panic_id, report, guard, reported_at, state, attempts, last_error, updated_at)
     VALUES (?, ?, ?, ?, ?, 'pending', 0, NULL, ?) ON CONFLICT (panic_id, report) DO NOTHING`,
  ).run(report.reportId, report.panicId, report.report, report.guard, report.at, report.at);
}

const SENDABLE_REPORTS = `FROM panic_reports r JOIN panics p USING (panic_id) WHERE r.state = 'pending' AND p.state = 'sent' AND p.incident_id IS NOT NULL`;

export function hasUnsentPanicReport(db: KioskDb): boolean {
  return db.prepare(`SELECT 1 ${SENDABLE_REPORTS} LIMIT 1`).get() !== undefined;
}

/** Reports whose SOS has reached the server, oldest first. */
export function sendableReports(db: KioskDb): Array<PanicReportRow & { incident_id: string }> {
  return db.prepare(`SELECT r.*, p.incident_id ${SENDABLE_REPORTS} ORDER BY r.reported_at`).all() as Array<PanicReportRow & { incident_id: string }>;
}

export function countReportAttempt(db: KioskDb, reportId: string): void {
  db.prepare('UPDATE panic_reports SET attempts = attempts + 1 WHERE report_id = ?').run(reportId);
}

/** `state` null: not sent this time, only the error noted. */
export function settleReport(db: KioskDb, reportId: string, state: 'sent' | 'refused' | null, lastError: string | null, at: string): void {
  if (state === null) db.prepare('UPDATE panic_reports SET last_error = ?, updated_at = ? WHERE report_id = ?').run(lastError, at, reportId);
  else db.prepare('UPDATE panic_reports SET state = ?, last_error = ?, updated_at = ? WHERE report_id = ?').run(state, lastError, at, reportId);
}
