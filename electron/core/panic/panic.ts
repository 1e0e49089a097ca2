import type { PanicStatus } from '../../../shared/kiosk/calls.ts';
import { KioskCallError } from '../../../shared/kiosk/calls.ts';
import type { CoreContext } from '../context.ts';
import { addAttention } from '../outbox/store.ts';
import { recordFact } from '../peers/store.ts';
import type { PanicFact } from '../peers/facts.ts';
import {
  activePanic,
  closePanic,
  countPanicAttempt,
  countReportAttempt,
  firstPressOf,
  followedIncidents,
  insertPanic,
  insertPress,
  insertReport,
  joinablePanic,
  latestPanic,
  markPanicRefused,
  markPanicSent,
  notePanicFailure,
  panicById,
  panicResponder,
  pressById,
  reportsOf,
  sendableReports,
  setIncident,
  settleReport,
  unsentPanics,
  type PanicReportRow,
  type PanicRow,
} from './store.ts';
import type { AnswerOf, BodyOf } from '../link/server-api.ts';

/** What the SOS reads and writes. */
export type PanicDeps = Pick<CoreContext, 'clock' | 'db' | 'guard' | 'kioskId' | 'link' | 'newId' | 'nowIso' | 'timings' | 'peers'>;

type CreateIncidentBody = BodyOf<'post', '/incidents'>;
type Incident = AnswerOf<'get', '/incidents/{incidentId}'>['incident'];

const FINAL_INCIDENT_STATUSES = new Set(['resolved', 'cancelled']);

/**
 * A new press joins a sent SOS only this soon after its first press: a guard pressing twice, or
 * a screen retrying. Later it is a new emergency, and gets a new incident, whatever the kiosk's
 * (possibly stale) copy of the old incident's status says.
 */
export const PANIC_JOIN_WINDOW_MS = 2 * 60_000;

function statusOfPress(ctx: PanicDeps, row: PanicRow, pressId: string): PanicStatus {
  const press = pressById(ctx.db, pressId);
  return toPanicStatus(row, pressId, press?.pressed_at ?? row.pressed_at, ctx.nowIso(), reportsOf(ctx.db, row.panic_id));
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
export function pressPanic(ctx: PanicDeps, pressId: string): PanicStatus {
  const settings = ctx.link.settings;
  if (!settings) throw new KioskCallError(412, 'This kiosk is not set up yet: run the setup first');
  const now = ctx.clock.now();
  const at = now.toISOString();
  const status = ctx.db.transaction(() => {
    const known = pressById(ctx.db, pressId);
    if (known) return statusOfPress(ctx, panicById(ctx.db, known.panic_id)!, pressId);
    const active = joinablePanic(ctx.db, new Date(now.getTime() - PANIC_JOIN_WINDOW_MS).toISOString());
    if (active) {
      insertPress(ctx.db, pressId, active.panic_id, at);
      return toPanicStatus(active, pressId, at, at, reportsOf(ctx.db, active.panic_id));
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
    insertPanic(ctx.db, { panicId, pressedAt: at, idempotencyKey: key, body: JSON.stringify(body) });
    insertPress(ctx.db, pressId, panicId, at);
    // Every gate of the site hears of it, and one that reaches the server carries it (issue #49).
    recordFact(
      ctx.db,
      { kind: 'panic', panicId, kioskId: ctx.kioskId, gate: settings.entryPoint, state: 'pending', pressedAt: at, at, request: { idempotencyKey: key, body: JSON.stringify(body) } },
      at,
    );
    return toPanicStatus(panicById(ctx.db, panicId)!, pressId, at, at);
  })();
  ctx.peers.announce();
  return status;
}

export function panicStatus(ctx: PanicDeps, pressId: string | undefined): PanicStatus | null {
  if (pressId) {
    const known = pressById(ctx.db, pressId);
    if (!known) throw new KioskCallError(404, `No panic press ${pressId} on this kiosk`);
    return statusOfPress(ctx, panicById(ctx.db, known.panic_id)!, pressId);
  }
  const latest = latestPanic(ctx.db);
  if (!latest) return null;
  const first = firstPressOf(ctx.db, latest.panic_id);
  return toPanicStatus(latest, first.press_id, first.pressed_at, ctx.nowIso(), reportsOf(ctx.db, latest.panic_id));
}

export function activePanicStatus(ctx: PanicDeps): PanicStatus | null {
  const row = activePanic(ctx.db);
  if (!row) return null;
  const first = firstPressOf(ctx.db, row.panic_id);
  return toPanicStatus(row, first.press_id, first.pressed_at, ctx.nowIso(), reportsOf(ctx.db, row.panic_id));
}

/** Sends every unsent SOS, oldest first. Answers whether they all reached the server. */
export async function sendPendingPanics(ctx: PanicDeps): Promise<boolean> {
  const api = ctx.link.api;
  if (!api) return false;
  const pending = unsentPanics(ctx.db);
  let allSent = true;
  for (const panic of pending) {
    if (ctx.link.inFlight.has(panic.panic_id)) {
      allSent = false;
      continue;
    }
    ctx.link.inFlight.add(panic.panic_id);
    try {
      countPanicAttempt(ctx.db, panic.panic_id);
      const answer = await api.call('post', '/incidents', {
        params: { header: { 'Idempotency-Key': panic.idempotency_key } },
        // Made by JSON.stringify from this request's fields when pressed: sent again as the same bytes.
        body: JSON.parse(panic.body) as CreateIncidentBody,
        timeoutMs: ctx.timings.requestTimeoutMs,
      });
      ctx.link.noteAnswer(answer);
      const at = ctx.nowIso();
      if (answer.kind === 'ok') {
        const incident = answer.body.incident;
        ctx.db.transaction(() => {
          recordIncident(ctx, panic.panic_id, incident, at);
          markPanicSent(ctx.db, panic.panic_id);
          recordFact(ctx.db, sentFact(ctx, panic, incident, at), at);
        })();
        ctx.peers.announce();
      } else if (answer.kind === 'refused') {
        ctx.db.transaction(() => {
          markPanicRefused(ctx.db, panic.panic_id, answer.message, at);
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
        notePanicFailure(ctx.db, panic.panic_id, answer.message, next, at);
      }
    } finally {
      ctx.link.inFlight.delete(panic.panic_id);
    }
  }
  return allSent;
}

/** The SOS sent, as the site's other gates hear it: they stop carrying it. */
function sentFact(ctx: PanicDeps, panic: { panic_id: string; pressed_at: string }, incident: Incident, at: string): PanicFact {
  return {
    kind: 'panic',
    panicId: panic.panic_id,
    kioskId: ctx.kioskId,
    gate: ctx.link.settings?.entryPoint ?? '',
    state: 'sent',
    pressedAt: panic.pressed_at,
    at,
    incidentId: incident.incident_id,
    incidentStatus: incident.status,
    sentBy: ctx.kioskId,
  };
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

function recordIncident(ctx: PanicDeps, panicId: string, incident: Incident, at: string): void {
  const known = panicResponder(ctx.db, panicId);
  const previous = known ? (JSON.parse(known) as KnownResponder) : null;
  const given = incident.responder
    ? { name: incident.responder.name, phone: incident.responder.phone ?? null, etaMinutes: incident.responder.eta_minutes ?? null }
    : null;
  const responder = given ? { ...given, arriveBy: arriveBy(previous, given, at) } : null;
  setIncident(ctx.db, panicId, { incidentId: incident.incident_id, status: incident.status, responder: responder ? JSON.stringify(responder) : null }, at);
}

/** Reads the incidents of sent SOS presses that are not over yet: status, responder, ETA. */
export async function refreshPanicIncidents(ctx: PanicDeps): Promise<void> {
  const api = ctx.link.api;
  if (!api) return;
  const open = followedIncidents(ctx.db);
  for (const panic of open) {
    const answer = await api.call('get', '/incidents/{incidentId}', { params: { path: { incidentId: panic.incident_id! } }, timeoutMs: ctx.timings.requestTimeoutMs });
    ctx.link.noteAnswer(answer);
    if ((answer.kind === 'blocked' || answer.kind === 'refused') && (answer.status === 403 || answer.status === 404)) {
      // The key may not read incidents, or the incident is not this key's (the kiosk moved): it
      // never will be readable, so the kiosk stops following it (and a new press is a new SOS).
      const at = ctx.nowIso();
      closePanic(ctx.db, panic.panic_id, at);
      continue;
    }
    if (answer.kind !== 'ok') continue;
    recordIncident(ctx, panic.panic_id, answer.body.incident, ctx.nowIso());
  }
}

export function hasOpenIncident(ctx: Pick<CoreContext, 'db'>): boolean {
  const row = activePanic(ctx.db);
  return row?.state === 'sent' && row.closed_at === null && !FINAL_INCIDENT_STATUSES.has(row.incident_status ?? '');
}

/**
 * The guard's word on the SOS the screen shows: "I called for help" or "False alarm" (issue
 * #35). Saved first, with the guard on duty and the time, then sent as soon as the SOS's incident
 * exists (with the same queue discipline as the SOS: offline, it waits). Saying it again changes
 * nothing. It never cancels the SOS: operators close a false alarm.
 */
export function reportPanic(ctx: PanicDeps, pressId: string, report: PanicReportRow['report']): PanicStatus {
  const known = pressById(ctx.db, pressId);
  if (!known) throw new KioskCallError(404, `No panic press ${pressId} on this kiosk`);
  const at = ctx.nowIso();
  insertReport(ctx.db, { reportId: ctx.newId('rep', new Date(at)), panicId: known.panic_id, report, guard: ctx.guard()?.name ?? null, at });
  return statusOfPress(ctx, panicById(ctx.db, known.panic_id)!, pressId);
}

/**
 * Sends the guard's reports whose SOS has reached the server, oldest first, each under an
 * Idempotency-Key of its own (a retry is recorded once). A report on an SOS the server refused
 * stays with it: the guard was told to raise the alarm another way.
 */
export async function sendPendingPanicReports(ctx: PanicDeps): Promise<boolean> {
  const api = ctx.link.api;
  if (!api) return false;
  const pending = sendableReports(ctx.db);
  let allSent = true;
  for (const row of pending) {
    if (ctx.link.inFlight.has(row.report_id)) {
      allSent = false;
      continue;
    }
    ctx.link.inFlight.add(row.report_id);
    try {
      countReportAttempt(ctx.db, row.report_id);
      const answer = await api.call('post', '/incidents/{incidentId}/guard-report', {
        params: { path: { incidentId: row.incident_id }, header: { 'Idempotency-Key': `${ctx.kioskId}.${row.report_id}` } },
        body: { report: row.report, ...(row.guard ? { guard: row.guard } : {}), reported_at: row.reported_at },
        timeoutMs: ctx.timings.requestTimeoutMs,
      });
      ctx.link.noteAnswer(answer);
      const at = ctx.nowIso();
      if (answer.kind === 'ok') settleReport(ctx.db, row.report_id, 'sent', null, at);
      else if (answer.kind === 'refused') settleReport(ctx.db, row.report_id, 'refused', answer.message, at);
      else {
        allSent = false;
        settleReport(ctx.db, row.report_id, null, answer.message, at);
      }
    } finally {
      ctx.link.inFlight.delete(row.report_id);
    }
  }
  return allSent;
}
