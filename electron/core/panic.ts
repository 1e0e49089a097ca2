import type { PanicStatus } from '../../shared/kiosk/calls.ts';
import { KioskCallError } from '../../shared/kiosk/calls.ts';
import type { CoreContext } from './context.ts';
import { addAttention } from './outbox/store.ts';
import type { AnswerOf, BodyOf } from './link/server-api.ts';

type CreateIncidentBody = BodyOf<'post', '/incidents'>;
type Incident = AnswerOf<'get', '/incidents/{incidentId}'>['incident'];

interface PanicRow {
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

const FINAL_INCIDENT_STATUSES = new Set(['resolved', 'cancelled']);

/**
 * A new press joins a sent SOS only this soon after its first press: a guard pressing twice, or
 * a screen retrying. Later it is a new emergency, and gets a new incident, whatever the kiosk's
 * (possibly stale) copy of the old incident's status says.
 */
export const PANIC_JOIN_WINDOW_MS = 2 * 60_000;

/** A sent SOS the kiosk still follows: its incident not over as far as the kiosk knows. */
const FOLLOWED = `state = 'sent' AND closed_at IS NULL AND (incident_status IS NULL OR incident_status NOT IN ('resolved', 'cancelled'))`;

function panicById(ctx: CoreContext, panicId: string): PanicRow | undefined {
  return ctx.db.prepare('SELECT * FROM panics WHERE panic_id = ?').get(panicId) as PanicRow | undefined;
}

/** The SOS shown as under way: not yet acknowledged, or acknowledged and its incident followed and not over. */
function activePanic(ctx: CoreContext): PanicRow | undefined {
  return ctx.db.prepare(`SELECT * FROM panics WHERE state = 'pending' OR (${FOLLOWED}) ORDER BY pressed_at DESC LIMIT 1`).get() as PanicRow | undefined;
}

/** The SOS a new press joins: one not sent yet, or one sent and first pressed within the join window. */
function joinablePanic(ctx: CoreContext, now: Date): PanicRow | undefined {
  const since = new Date(now.getTime() - PANIC_JOIN_WINDOW_MS).toISOString();
  return ctx.db
    .prepare(`SELECT * FROM panics WHERE state = 'pending' OR (${FOLLOWED} AND pressed_at >= ?) ORDER BY pressed_at DESC LIMIT 1`)
    .get(since) as PanicRow | undefined;
}

function firstPressOf(ctx: CoreContext, panicId: string): { press_id: string; pressed_at: string } {
  return ctx.db.prepare('SELECT press_id, pressed_at FROM panic_presses WHERE panic_id = ? ORDER BY pressed_at, rowid LIMIT 1').get(panicId) as {
    press_id: string;
    pressed_at: string;
  };
}

function statusOfPress(ctx: CoreContext, row: PanicRow, pressId: string): PanicStatus {
  const press = ctx.db.prepare('SELECT pressed_at FROM panic_presses WHERE press_id = ?').get(pressId) as { pressed_at: string } | undefined;
  return toPanicStatus(row, pressId, press?.pressed_at ?? row.pressed_at, ctx.nowIso(), reportsOf(ctx, row.panic_id));
}

/** `pressId`: the press the screen asked about, so it can keep polling with its own id; `pressedAt`: that press's own time. */
export function toPanicStatus(row: PanicRow, pressId: string, pressedAt: string, reportedAt: string, reports: PanicStatus['reports'] = []): PanicStatus {
  const responder = row.responder ? (JSON.parse(row.responder) as PanicStatus['responder']) : null;
  return {
    pressId,
    pressedAt,
    delivery: row.state === 'sent' ? 'sent' : row.state === 'refused' ? 'refused' : row.attempts === 0 ? 'sending' : 'retrying',
    attempts: row.attempts,
    lastError: row.last_error,
    nextAttemptAt: row.state === 'pending' ? row.next_attempt_at : null,
    incidentId: row.incident_id,
    incidentStatus: row.incident_status,
    responder,
    updatedAt: row.updated_at,
    // For a sent SOS only the incident's reads (recordIncident) and closing write updated_at.
    statusCheckedAt: row.state === 'sent' ? row.updated_at : null,
    reportedAt,
    reports,
  };
}

/**
 * A press of the panic button. Saved first; then sent at once, ahead of anything queued. A press
 * while an SOS is still under way (unsent, or its incident not over) joins it: a guard pressing
 * twice, or a screen retrying, never makes two incidents.
 */
export function pressPanic(ctx: CoreContext, pressId: string): PanicStatus {
  const settings = ctx.link.settings;
  if (!settings) throw new KioskCallError(412, 'This kiosk is not set up yet: run the setup first');
  const now = ctx.clock.now();
  const at = now.toISOString();
  return ctx.db.transaction(() => {
    const known = ctx.db.prepare('SELECT panic_id FROM panic_presses WHERE press_id = ?').get(pressId) as { panic_id: string } | undefined;
    if (known) return statusOfPress(ctx, panicById(ctx, known.panic_id)!, pressId);
    const active = joinablePanic(ctx, now);
    if (active) {
      ctx.db.prepare('INSERT INTO panic_presses (press_id, panic_id, pressed_at) VALUES (?, ?, ?)').run(pressId, active.panic_id, at);
      return toPanicStatus(active, pressId, at, at, reportsOf(ctx, active.panic_id));
    }
    const panicId = ctx.newId('sos', now);
    const key = `${ctx.kioskId}.${panicId}`;
    const guard = ctx.guard();
    const body = {
      category: 'sos',
      severity: 'critical',
      subject: {
        name: guard?.name ?? `Guard at ${settings.entryPoint}`,
        ...(guard?.phone ? { phone: guard.phone } : {}),
        reference: ctx.kioskId,
        metadata: { kiosk_id: ctx.kioskId, entry_point: settings.entryPoint, pressed_at: at },
      },
      location: { coordinates: [settings.longitude, settings.latitude], address: settings.entryPoint },
      description: `Panic button pressed at ${settings.entryPoint} at ${at}`,
      // The reference's own body key too: it holds even after the header's 24 h record is gone.
      idempotency_key: key.slice(0, 128),
    };
    ctx.db
      .prepare(`INSERT INTO panics (panic_id, pressed_at, idempotency_key, body, state, next_attempt_at, updated_at) VALUES (?, ?, ?, ?, 'pending', ?, ?)`)
      .run(panicId, at, key, JSON.stringify(body), at, at);
    ctx.db.prepare('INSERT INTO panic_presses (press_id, panic_id, pressed_at) VALUES (?, ?, ?)').run(pressId, panicId, at);
    return toPanicStatus(panicById(ctx, panicId)!, pressId, at, at);
  })();
}

export function panicStatus(ctx: CoreContext, pressId: string | undefined): PanicStatus | null {
  if (pressId) {
    const known = ctx.db.prepare('SELECT panic_id FROM panic_presses WHERE press_id = ?').get(pressId) as { panic_id: string } | undefined;
    if (!known) throw new KioskCallError(404, `No panic press ${pressId} on this kiosk`);
    return statusOfPress(ctx, panicById(ctx, known.panic_id)!, pressId);
  }
  const latest = ctx.db.prepare('SELECT * FROM panics ORDER BY pressed_at DESC LIMIT 1').get() as PanicRow | undefined;
  if (!latest) return null;
  const first = firstPressOf(ctx, latest.panic_id);
  return toPanicStatus(latest, first.press_id, first.pressed_at, ctx.nowIso(), reportsOf(ctx, latest.panic_id));
}

export function activePanicStatus(ctx: CoreContext): PanicStatus | null {
  const row = activePanic(ctx);
  if (!row) return null;
  const first = firstPressOf(ctx, row.panic_id);
  return toPanicStatus(row, first.press_id, first.pressed_at, ctx.nowIso(), reportsOf(ctx, row.panic_id));
}

/**
 * The kiosk moved to another server or key: the incidents it sent are not readable there, and
 * a new press must not join them.
 */
export function closeFollowedPanics(ctx: Pick<CoreContext, 'db'>, at: string): void {
  ctx.db.prepare(`UPDATE panics SET closed_at = ?, updated_at = ? WHERE ${FOLLOWED}`).run(at, at);
}

export function hasUnsentPanic(ctx: CoreContext): boolean {
  return ctx.db.prepare(`SELECT 1 FROM panics WHERE state = 'pending' LIMIT 1`).get() !== undefined;
}

/** Sends every unsent SOS, oldest first. Answers whether they all reached the server. */
export async function sendPendingPanics(ctx: CoreContext): Promise<boolean> {
  const api = ctx.link.api;
  if (!api) return false;
  const pending = ctx.db.prepare(`SELECT * FROM panics WHERE state = 'pending' ORDER BY pressed_at`).all() as PanicRow[];
  let allSent = true;
  for (const panic of pending) {
    if (ctx.link.inFlight.has(panic.panic_id)) {
      allSent = false;
      continue;
    }
    ctx.link.inFlight.add(panic.panic_id);
    try {
      ctx.db.prepare('UPDATE panics SET attempts = attempts + 1 WHERE panic_id = ?').run(panic.panic_id);
      const answer = await api.call('post', '/incidents', {
        params: { header: { 'Idempotency-Key': panic.idempotency_key } },
        // Made by JSON.stringify from this request's fields when pressed: sent again as the same bytes.
        body: JSON.parse(panic.body) as CreateIncidentBody,
        timeoutMs: ctx.timings.requestTimeoutMs,
      });
      ctx.link.noteAnswer(answer);
      const at = ctx.nowIso();
      if (answer.kind === 'ok') {
        recordIncident(ctx, panic.panic_id, answer.body.incident, at);
        ctx.db.prepare(`UPDATE panics SET state = 'sent', last_error = NULL, next_attempt_at = NULL WHERE panic_id = ?`).run(panic.panic_id);
      } else if (answer.kind === 'refused') {
        ctx.db.transaction(() => {
          ctx.db.prepare(`UPDATE panics SET state = 'refused', last_error = ?, updated_at = ? WHERE panic_id = ?`).run(answer.message, at, panic.panic_id);
          addAttention(ctx.db, {
            attention_id: ctx.newId('att', new Date(at)),
            kind: 'operation_refused',
            operation: 'panic',
            message: `The SOS pressed at ${panic.pressed_at} was refused by the server (${answer.message}). Raise the alarm by phone.`,
            server_message: answer.message,
            visitor_name: null,
            code: null,
            happened_at: panic.pressed_at,
            log_id: null,
            op_id: panic.panic_id,
            follow_up_op_id: null,
            created_at: at,
          });
        })();
      } else {
        allSent = false;
        const next = new Date(ctx.clock.now().getTime() + ctx.timings.panicRetryMs).toISOString();
        ctx.db.prepare('UPDATE panics SET last_error = ?, next_attempt_at = ?, updated_at = ? WHERE panic_id = ?').run(answer.message, next, at, panic.panic_id);
      }
    } finally {
      ctx.link.inFlight.delete(panic.panic_id);
    }
  }
  return allSent;
}

type KnownResponder = NonNullable<PanicStatus['responder']>;

/**
 * The ETA counts down from when the kiosk first heard it: the server may give the same minutes
 * until the responder reports a new position (the simulated network never does), and "about
 * 28 min" shown for half an hour is a promise broken. A new value, or another responder, restarts it.
 */
function arriveBy(previous: KnownResponder | null, next: Omit<KnownResponder, 'arriveBy'>, at: string): string | null {
  if (next.etaMinutes === null) return null;
  if (previous && previous.name === next.name && previous.etaMinutes === next.etaMinutes && previous.arriveBy) return previous.arriveBy;
  return new Date(Date.parse(at) + next.etaMinutes * 60_000).toISOString();
}

function recordIncident(ctx: CoreContext, panicId: string, incident: Incident, at: string): void {
  const known = ctx.db.prepare('SELECT responder FROM panics WHERE panic_id = ?').get(panicId) as { responder: string | null } | undefined;
  const previous = known?.responder ? (JSON.parse(known.responder) as KnownResponder) : null;
  const given = incident.responder
    ? { name: incident.responder.name, phone: incident.responder.phone ?? null, etaMinutes: incident.responder.eta_minutes ?? null }
    : null;
  const responder = given ? { ...given, arriveBy: arriveBy(previous, given, at) } : null;
  ctx.db
    .prepare('UPDATE panics SET incident_id = ?, incident_status = ?, responder = ?, updated_at = ? WHERE panic_id = ?')
    .run(incident.incident_id, incident.status, responder ? JSON.stringify(responder) : null, at, panicId);
}

/** Reads the incidents of sent SOS presses that are not over yet: status, responder, ETA. */
export async function refreshPanicIncidents(ctx: CoreContext): Promise<void> {
  const api = ctx.link.api;
  if (!api) return;
  const open = ctx.db.prepare(`SELECT * FROM panics WHERE ${FOLLOWED} AND incident_id IS NOT NULL`).all() as PanicRow[];
  for (const panic of open) {
    const answer = await api.call('get', '/incidents/{incidentId}', { params: { path: { incidentId: panic.incident_id! } }, timeoutMs: ctx.timings.requestTimeoutMs });
    ctx.link.noteAnswer(answer);
    if ((answer.kind === 'blocked' || answer.kind === 'refused') && (answer.status === 403 || answer.status === 404)) {
      // The key may not read incidents, or the incident is not this key's (the kiosk moved): it
      // never will be readable, so the kiosk stops following it (and a new press is a new SOS).
      const at = ctx.nowIso();
      ctx.db.prepare('UPDATE panics SET closed_at = ?, updated_at = ? WHERE panic_id = ?').run(at, at, panic.panic_id);
      continue;
    }
    if (answer.kind !== 'ok') continue;
    recordIncident(ctx, panic.panic_id, answer.body.incident, ctx.nowIso());
  }
}

export function hasOpenIncident(ctx: CoreContext): boolean {
  const row = activePanic(ctx);
  return row?.state === 'sent' && row.closed_at === null && !FINAL_INCIDENT_STATUSES.has(row.incident_status ?? '');
}

interface PanicReportRow {
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

function reportsOf(ctx: Pick<CoreContext, 'db'>, panicId: string): PanicStatus['reports'] {
  const rows = ctx.db.prepare('SELECT report, reported_at, state FROM panic_reports WHERE panic_id = ? ORDER BY reported_at').all(panicId) as PanicReportRow[];
  return rows.map((row) => ({ report: row.report, at: row.reported_at, delivery: row.state === 'pending' ? 'waiting' : row.state }));
}

/**
 * The guard's word on the SOS the screen shows: "I called for help" or "False alarm" (issue
 * #35). Saved first, with the guard on duty and the time, then sent as soon as the SOS's incident
 * exists (with the same queue discipline as the SOS: offline, it waits). Saying it again changes
 * nothing. It never cancels the SOS: operators close a false alarm.
 */
export function reportPanic(ctx: CoreContext, pressId: string, report: PanicReportRow['report']): PanicStatus {
  const known = ctx.db.prepare('SELECT panic_id FROM panic_presses WHERE press_id = ?').get(pressId) as { panic_id: string } | undefined;
  if (!known) throw new KioskCallError(404, `No panic press ${pressId} on this kiosk`);
  const at = ctx.nowIso();
  ctx.db
    .prepare(
      `INSERT INTO panic_reports (report_id, panic_id, report, guard, reported_at, state, attempts, last_error, updated_at)
       VALUES (?, ?, ?, ?, ?, 'pending', 0, NULL, ?) ON CONFLICT (panic_id, report) DO NOTHING`,
    )
    .run(ctx.newId('rep', new Date(at)), known.panic_id, report, ctx.guard()?.name ?? null, at, at);
  return statusOfPress(ctx, panicById(ctx, known.panic_id)!, pressId);
}

export function hasUnsentPanicReport(ctx: CoreContext): boolean {
  return ctx.db.prepare(`SELECT 1 FROM panic_reports r JOIN panics p USING (panic_id) WHERE r.state = 'pending' AND p.state = 'sent' AND p.incident_id IS NOT NULL LIMIT 1`).get() !== undefined;
}

/**
 * Sends the guard's reports whose SOS has reached the server, oldest first, each under an
 * Idempotency-Key of its own (a retry is recorded once). A report on an SOS the server refused
 * stays with it: the guard was told to raise the alarm another way.
 */
export async function sendPendingPanicReports(ctx: CoreContext): Promise<boolean> {
  const api = ctx.link.api;
  if (!api) return false;
  const pending = ctx.db
    .prepare(
      `SELECT r.*, p.incident_id FROM panic_reports r JOIN panics p USING (panic_id)
       WHERE r.state = 'pending' AND p.state = 'sent' AND p.incident_id IS NOT NULL ORDER BY r.reported_at`,
    )
    .all() as Array<PanicReportRow & { incident_id: string }>;
  let allSent = true;
  for (const row of pending) {
    if (ctx.link.inFlight.has(row.report_id)) {
      allSent = false;
      continue;
    }
    ctx.link.inFlight.add(row.report_id);
    try {
      ctx.db.prepare('UPDATE panic_reports SET attempts = attempts + 1 WHERE report_id = ?').run(row.report_id);
      const answer = await api.call('post', '/incidents/{incidentId}/guard-report', {
        params: { path: { incidentId: row.incident_id }, header: { 'Idempotency-Key': `${ctx.kioskId}.${row.report_id}` } },
        body: { report: row.report, ...(row.guard ? { guard: row.guard } : {}), reported_at: row.reported_at },
        timeoutMs: ctx.timings.requestTimeoutMs,
      });
      ctx.link.noteAnswer(answer);
      const at = ctx.nowIso();
      if (answer.kind === 'ok') ctx.db.prepare(`UPDATE panic_reports SET state = 'sent', last_error = NULL, updated_at = ? WHERE report_id = ?`).run(at, row.report_id);
      else if (answer.kind === 'refused') ctx.db.prepare(`UPDATE panic_reports SET state = 'refused', last_error = ?, updated_at = ? WHERE report_id = ?`).run(answer.message, at, row.report_id);
      else {
        allSent = false;
        ctx.db.prepare('UPDATE panic_reports SET last_error = ?, updated_at = ? WHERE report_id = ?').run(answer.message, at, row.report_id);
      }
    } finally {
      ctx.link.inFlight.delete(row.report_id);
    }
  }
  return allSent;
}
