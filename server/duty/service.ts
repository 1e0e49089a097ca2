import type { AreaShape, Duty, ServiceArea, Shift, StaffAlert } from '../../shared/schemas/duty.ts';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import { inTransaction, type Db, type Executor, type ResponderRow, type StaffAlertRow } from '../db/schema.ts';
import { representIncident, withIncident } from '../dispatch/engine.ts';
import { withdrawOpenOffersOf } from '../dispatch/responder-actions.ts';
import { ApiError, conflict, notFound } from '../http/errors.ts';
import { newId } from '../ids.ts';
import { recordIncidentEntry } from '../incidents/lifecycle.ts';
import type { Job } from '../jobs/runner.ts';
import { recordStaffAction, type StaffActor } from '../staff/service.ts';
import type { WebhookQueue } from '../webhooks/queue.ts';
import { freshFix } from '../dispatch/nearest.ts';
import { AREA_EDGE_ALLOWANCE_M, distanceWords, metresOutside } from './area-geometry.ts';
import { ageWords, dutyOf, hourIn, shiftCovers } from './status.ts';
import * as store from './store.ts';

/**
 * Duty (issue #47): a responder's status and its age, out of service, the areas and shifts a
 * network admin plans, the alerts staff see, and on-scene safety: "I'm OK" check-ins and the
 * responder's panic. The alerts job (on the runner, server/jobs/) looks every ALERTS_EVERY_S.
 */
export interface DutySettings {
  checkInEveryS: number;
  noFixAlertS: number;
  /** A fix older than this says nothing of where a responder is now (DISPATCH_FIX_MAX_AGE_S, as dispatch ranks). */
  fixMaxAgeS: number;
  /** Seconds each status may last before staff are alerted. */
  limits: { offered: number; en_route: number; on_scene: number; out_of_service: number };
  timeZone: string;
}

export const dutySettingsOf = (config: Config): DutySettings => ({
  checkInEveryS: config.CHECK_IN_EVERY_S,
  noFixAlertS: config.NO_FIX_ALERT_S,
  fixMaxAgeS: config.DISPATCH_FIX_MAX_AGE_S,
  limits: { offered: config.STATUS_LIMIT_OFFERED_S, en_route: config.STATUS_LIMIT_EN_ROUTE_S, on_scene: config.STATUS_LIMIT_ON_SCENE_S, out_of_service: config.STATUS_LIMIT_OUT_OF_SERVICE_S },
  timeZone: config.SHIFT_TIME_ZONE,
});

export interface DutyDeps {
  db: Db;
  clock: Clock;
  webhookQueue: WebhookQueue;
  settings: DutySettings;
}

const iso = (ms: number) => new Date(ms).toISOString();

// ---- Statuses ----

/** Each responder's status and since when (all verified live responders, or the given ones). */
export async function dutyByResponder(db: Executor, responderIds?: string[]): Promise<Map<string, Duty>> {
  const [rows, offers, inHand] = await Promise.all([store.dutyResponders(db, { responderIds }), store.openOfferSince(db), store.incidentsInHand(db)]);
  const hands = new Map(inHand.map((row) => [row.responder_id, row]));
  return new Map(rows.map((row) => [row.responder_id, dutyOf(row, hands.get(row.responder_id), offers.get(row.responder_id))]));
}

export async function responderDuty(db: Executor, responderId: string): Promise<Duty> {
  const duty = (await dutyByResponder(db, [responderId])).get(responderId);
  if (!duty) throw notFound('Responder');
  return duty;
}

/** Adds `duty_status`, `status_since` and `out_of_service_reason` to each responder of a list. */
export async function withDuty<T extends { responder_id: string }>(db: Executor, responders: T[]): Promise<(T & Duty)[]> {
  const duties = await dutyByResponder(db, responders.map((r) => r.responder_id));
  return responders.map((r) => ({ ...r, ...(duties.get(r.responder_id) ?? { duty_status: 'off_duty' as const, status_since: null, out_of_service_reason: null }) }));
}

/**
 * Out of service, saying why (the responder from the app, or a supervisor): unavailable, their
 * open offers withdrawn, offered nothing until back in service; the heartbeat does not undo it.
 */
export async function takeOutOfService(deps: DutyDeps, responder: Pick<ResponderRow, 'responder_id' | 'status'>, reason: string, by: StaffActor | 'responder'): Promise<Duty> {
  if (responder.status !== 'active') throw conflict('Responder is retired');
  const at = deps.clock.now().toISOString();
  await inTransaction(deps.db, async (trx) => {
    await store.setOutOfService(trx, responder.responder_id, { reason, at, by: by === 'responder' ? 'responder' : by.staffId }, at);
    await withdrawOpenOffersOf(trx, responder.responder_id, at);
    if (by !== 'responder') await recordStaffAction(trx, deps.clock, by, { action: 'outOfService', subjectType: 'responder', subjectId: responder.responder_id, detail: { reason } });
  });
  return responderDuty(deps.db, responder.responder_id);
}

/** Back in service: off duty until the app reports on duty (its next heartbeat). */
export async function returnToService(deps: DutyDeps, responder: Pick<ResponderRow, 'responder_id' | 'status' | 'out_of_service_reason'>, by: StaffActor | 'responder'): Promise<Duty> {
  if (responder.status !== 'active') throw conflict('Responder is retired');
  // Not out of service (a retry): answered as it is, its age kept.
  if (!responder.out_of_service_reason) return responderDuty(deps.db, responder.responder_id);
  const at = deps.clock.now().toISOString();
  await inTransaction(deps.db, async (trx) => {
    await store.setOutOfService(trx, responder.responder_id, null, at);
    if (by !== 'responder') await recordStaffAction(trx, deps.clock, by, { action: 'backInService', subjectType: 'responder', subjectId: responder.responder_id });
  });
  return responderDuty(deps.db, responder.responder_id);
}

// ---- Areas and shifts ----

function areaOf(row: { area_id: string; name: string; shape: string; created_by: string; created_at: string }, shifts: number): ServiceArea {
  return { area_id: row.area_id, name: row.name, shape: JSON.parse(row.shape) as AreaShape, created_by: row.created_by, created_at: row.created_at, shifts };
}

export async function listAreas(db: Executor): Promise<ServiceArea[]> {
  const [rows, counts] = await Promise.all([store.listAreaRows(db), store.shiftCountsByArea(db)]);
  return rows.map((row) => areaOf(row, counts.get(row.area_id) ?? 0));
}

export async function createArea(deps: DutyDeps, actor: StaffActor, input: { name: string; shape: AreaShape }): Promise<ServiceArea> {
  const row = { area_id: newId('area', deps.clock.now()), name: input.name, shape: JSON.stringify(input.shape), created_by: actor.staffId, created_at: deps.clock.now().toISOString() };
  await inTransaction(deps.db, async (trx) => {
    await store.insertArea(trx, row);
    await recordStaffAction(trx, deps.clock, actor, { action: 'createArea', subjectType: 'area', subjectId: row.area_id, detail: { name: input.name, type: input.shape.type } });
  });
  return areaOf(row, 0);
}

/** An area with shifts planned in it is kept (409): remove its shifts first. */
export async function removeArea(deps: DutyDeps, actor: StaffActor, areaId: string): Promise<void> {
  await inTransaction(deps.db, async (trx) => {
    if (!(await store.findArea(trx, areaId))) throw notFound('Area');
    const shifts = await store.listShiftRows(trx, { areaId });
    if (shifts.length) throw conflict(`${shifts.length} shift${shifts.length > 1 ? 's are' : ' is'} planned in this area: remove ${shifts.length > 1 ? 'them' : 'it'} first`);
    await store.deleteArea(trx, areaId);
    await recordStaffAction(trx, deps.clock, actor, { action: 'removeArea', subjectType: 'area', subjectId: areaId });
  });
}

const shiftOf = (row: store.ShiftView, hour: number): Shift => ({
  shift_id: row.shift_id,
  responder_id: row.responder_id,
  responder_name: row.responder_name,
  area_id: row.area_id,
  area_name: row.area_name,
  start_hour: Number(row.start_hour),
  end_hour: Number(row.end_hour),
  on_now: shiftCovers(row, hour),
  created_by: row.created_by,
  created_at: row.created_at,
});

export async function listShifts(deps: Pick<DutyDeps, 'db' | 'clock'> & { settings: Pick<DutySettings, 'timeZone'> }, filter: { areaId?: string; responderId?: string } = {}): Promise<Shift[]> {
  const hour = hourIn(deps.clock.now(), deps.settings.timeZone);
  return (await store.listShiftRows(deps.db, filter)).map((row) => shiftOf(row, hour));
}

/** A bad reference in a body: a 400 naming the field, in the error shape of every invalid input. */
const badField = (field: string, message: string) => new ApiError(400, `${field}: ${message}`, {}, [{ field, message: `${field}: ${message}` }]);

export async function createShift(deps: DutyDeps, actor: StaffActor, input: { responder_id: string; area_id: string; start_hour: number; end_hour: number }): Promise<Shift> {
  const row = { shift_id: newId('shf', deps.clock.now()), ...input, end_hour: input.end_hour % 24, created_by: actor.staffId, created_at: deps.clock.now().toISOString() };
  await inTransaction(deps.db, async (trx) => {
    const [responder] = await store.dutyResponders(trx, { responderIds: [input.responder_id] });
    if (!responder || responder.environment !== 'live') throw badField('responder_id', 'no such responder in the live network');
    if (responder.status !== 'active') throw badField('responder_id', 'the responder is retired');
    if (!(await store.findArea(trx, input.area_id))) throw badField('area_id', 'no such area');
    await store.insertShift(trx, row);
    await recordStaffAction(trx, deps.clock, actor, { action: 'createShift', subjectType: 'shift', subjectId: row.shift_id, detail: { responder_id: input.responder_id, area_id: input.area_id, start_hour: input.start_hour, end_hour: row.end_hour } });
  });
  return (await listShifts(deps)).find((shift) => shift.shift_id === row.shift_id)!;
}

export async function removeShift(deps: DutyDeps, actor: StaffActor, shiftId: string): Promise<void> {
  await inTransaction(deps.db, async (trx) => {
    if (!(await store.deleteShift(trx, shiftId))) throw notFound('Shift');
    await recordStaffAction(trx, deps.clock, actor, { action: 'removeShift', subjectType: 'shift', subjectId: shiftId });
  });
}

// ---- Alerts ----

const alertOf = (row: store.AlertView): StaffAlert => ({
  alert_id: row.alert_id,
  kind: row.kind as StaffAlert['kind'],
  responder_id: row.responder_id,
  responder_name: row.responder_name,
  incident_id: row.incident_id,
  organization_id: row.organization_id,
  message: row.message,
  raised_at: row.raised_at,
  cleared_at: row.cleared_at,
});

export async function listAlerts(db: Executor, state: 'open' | 'all'): Promise<StaffAlert[]> {
  return (await store.listAlertRows(db, state)).map(alertOf);
}

/** A controller has dealt with it (a panic, a missed check-in): cleared, recorded in the service audit log. */
export async function acknowledgeAlert(deps: DutyDeps, actor: StaffActor, alertId: string): Promise<void> {
  const alert = await store.findAlert(deps.db, alertId);
  if (!alert) throw notFound('Alert');
  if (!alert.open_key) return;
  await inTransaction(deps.db, async (trx) => {
    await store.clearAlert(trx, alertId, deps.clock.now().toISOString());
    await recordStaffAction(trx, deps.clock, actor, { action: 'acknowledgeAlert', subjectType: 'responder', subjectId: alert.responder_id, organizationId: alert.organization_id ?? undefined, detail: { alert_id: alertId, kind: alert.kind } });
  });
}

/** `variant`: what else tells one alert of a kind from another (a status past its limit: which status). */
type AlertDraft = Pick<StaffAlertRow, 'kind' | 'responder_id' | 'incident_id' | 'organization_id' | 'message'> & { variant?: string };
const keyOf = (draft: Pick<AlertDraft, 'kind' | 'responder_id' | 'incident_id' | 'variant'>) => `${draft.kind}:${draft.responder_id}:${draft.incident_id ?? '-'}${draft.variant ? `:${draft.variant}` : ''}`;

/** Opens the alert unless one like it is open (any host); the opening goes to the service audit log as the service's own. */
async function raiseAlert(db: Db, clock: Clock, draft: AlertDraft): Promise<boolean> {
  const at = clock.now().toISOString();
  const { variant: _variant, ...fields } = draft;
  return inTransaction(db, async (trx) => {
    const opened = await store.openAlert(trx, { alert_id: newId('alrt', clock.now()), ...fields, raised_at: at, cleared_at: null, open_key: keyOf(draft) });
    if (!opened) return false;
    // The alert and its line in the service audit log commit together.
    await recordStaffAction(trx, clock, 'system', {
      action: 'alertRaised',
      subjectType: 'responder',
      subjectId: draft.responder_id,
      organizationId: draft.organization_id ?? undefined,
      detail: { kind: draft.kind, message: draft.message, ...(draft.incident_id && { incident_id: draft.incident_id }) },
    });
    return true;
  });
}

/** Alerts that stay open while their condition holds; the others (panic, missed check-in) until dealt with. */
const CONDITION_KINDS = new Set(['on_shift_off_duty', 'on_shift_outside_area', 'no_fix', 'status_overdue']);

// ---- Safety ----

const CONTROL = 'Tsaro control';

/** The case goes to the top of the staff queue: a timeline entry and the event `incident.control_alert` (once per case). */
async function raiseToTop(deps: DutyDeps, incidentId: string, why: 'panic' | 'missed_check_ins', message: string): Promise<void> {
  // An incident that ended meanwhile (resolved a moment ago) has no queue to top: nothing to raise.
  await raiseOrEnded(deps, incidentId, why, message).catch((err: unknown) => {
    if (!(err instanceof ApiError && err.status === 409)) throw err;
  });
}

async function raiseOrEnded(deps: DutyDeps, incidentId: string, why: 'panic' | 'missed_check_ins', message: string): Promise<void> {
  await withIncident(deps.db, incidentId, async (trx, incident) => {
    const at = deps.clock.now().toISOString();
    await store.raiseCase(trx, incidentId, why, at);
    await recordIncidentEntry(trx, deps, incident, {
      event: 'control_alert',
      message: `${CONTROL} alerted: ${message}`,
      type: 'incident.control_alert',
      extra: { control: { action: 'alert', by: CONTROL, message, at } },
      represent: representIncident(incident),
    });
  });
}

/** The app's view: its status, and on scene when the next "I'm OK" is due. */
export async function safetyState(deps: DutyDeps, responderId: string) {
  const duty = await responderDuty(deps.db, responderId);
  const [inHand] = await store.incidentsInHand(deps.db, responderId);
  if (!inHand || inHand.status !== 'on_scene') return { duty, check_in: null };
  const check = await ensureCheck(deps, inHand);
  return { duty, check_in: { incident_id: inHand.incident_id, due_at: check.due_at, missed: Number(check.missed), every_s: deps.settings.checkInEveryS } };
}

async function ensureCheck(deps: DutyDeps, inHand: store.InHandRow) {
  // On scene, the first is due a period after arriving; a panic on the way starts the period now.
  const start = inHand.status === 'on_scene' && inHand.on_scene_at ? Date.parse(inHand.on_scene_at) : deps.clock.now().getTime();
  await store.startSafetyCheck(deps.db, { incident_id: inHand.incident_id, responder_id: inHand.responder_id, due_at: iso(start + deps.settings.checkInEveryS * 1000), missed: 0, last_ok_at: null, raised_at: null, raised_why: null });
  return (await store.safetyCheckOf(deps.db, inHand.incident_id))!;
}

/** "I'm OK" on scene: the next one is due a period from now; a missed check-in's alert is cleared. */
export async function checkIn(deps: DutyDeps, responderId: string, incidentId: string) {
  const [inHand] = await store.incidentsInHand(deps.db, responderId);
  if (!inHand || inHand.incident_id !== incidentId) throw notFound('Incident (not in your hands)');
  if (inHand.status !== 'on_scene') throw conflict('Check-ins start on scene');
  await ensureCheck(deps, inHand);
  const nowMs = deps.clock.now().getTime();
  await inTransaction(deps.db, async (trx) => {
    await store.recordCheckIn(trx, incidentId, iso(nowMs), iso(nowMs + deps.settings.checkInEveryS * 1000));
    const open = (await store.openAlertRows(trx)).find((row) => row.open_key === keyOf({ kind: 'missed_check_in', responder_id: responderId, incident_id: incidentId }));
    if (open) await store.clearAlert(trx, open.alert_id, iso(nowMs));
  });
  return safetyState(deps, responderId);
}

/**
 * The responder's panic: at once, an alert to controllers; with an incident in hand, the case to
 * the top of the staff queue with a timeline entry and `incident.control_alert`. Answers the
 * incident raised, or null.
 */
export async function panic(deps: DutyDeps, responder: Pick<ResponderRow, 'responder_id' | 'name'>, said?: string): Promise<{ raised: string | null }> {
  const [inHand] = await store.incidentsInHand(deps.db, responder.responder_id);
  const where = inHand ? (inHand.status === 'on_scene' ? ' on scene' : ' on the way') : '';
  const message = `${responder.name} pressed panic${where}${said ? `: ${said}` : ''}`;
  await raiseAlert(deps.db, deps.clock, { kind: 'panic', responder_id: responder.responder_id, incident_id: inHand?.incident_id ?? null, organization_id: inHand?.organization_id ?? null, message });
  if (!inHand) return { raised: null };
  await ensureCheck(deps, inHand);
  await raiseToTop(deps, inHand.incident_id, 'panic', message);
  return { raised: inHand.incident_id };
}

/** The incidents raised to the top of the staff queue (a responder's panic, two missed check-ins). */
export function raisedIncidents(db: Executor): Promise<Map<string, string>> {
  return store.raisedCases(db);
}

// ---- The job ----

export interface DutyPass {
  missedCheckIns: number;
  raised: number;
  alertsOpened: number;
  alertsCleared: number;
}

/**
 * One look, on every host (each write is once across hosts: a compare-and-set or a unique open
 * key): check-ins missed on scene (one: an alert; two: the case to the top of the queue), then
 * the condition alerts (on shift but off duty, available with no fix, a status past its limit),
 * opened when they start and cleared when they end.
 */
export async function dutyPass(deps: DutyDeps): Promise<DutyPass> {
  const pass: DutyPass = { missedCheckIns: 0, raised: 0, alertsOpened: 0, alertsCleared: 0 };
  const now = deps.clock.now();
  const nowMs = now.getTime();
  const [rows, offers, inHand, shifts] = await Promise.all([store.dutyResponders(deps.db), store.openOfferSince(deps.db), store.incidentsInHand(deps.db), store.listShiftRows(deps.db)]);
  const hands = new Map(inHand.map((row) => [row.responder_id, row]));
  const names = new Map(rows.map((row) => [row.responder_id, row.name]));

  // Safety: every responder on scene has a check-in row; one due and not sent is missed.
  for (const hand of inHand) if (hand.status === 'on_scene') await ensureCheck(deps, hand);
  const onScene = new Map(inHand.filter((hand) => hand.status === 'on_scene').map((hand) => [hand.incident_id, hand]));
  for (const check of await store.safetyChecks(deps.db)) {
    const hand = onScene.get(check.incident_id);
    if (!hand || hand.responder_id !== check.responder_id) {
      // Still in their hands (a panic on the way): kept; otherwise the case is over for check-ins.
      if (!inHand.some((row) => row.incident_id === check.incident_id && row.responder_id === check.responder_id)) await store.deleteSafetyCheck(deps.db, check.incident_id);
      continue;
    }
    if (Date.parse(check.due_at) > nowMs) continue;
    if (!(await store.markMissed(deps.db, check, iso(nowMs + deps.settings.checkInEveryS * 1000)))) continue;
    pass.missedCheckIns++;
    const missed = Number(check.missed) + 1;
    const name = names.get(check.responder_id) ?? 'The responder';
    const message = missed === 1 ? `${name} missed an "I'm OK" check-in on scene: call them` : `${name} missed ${missed} "I'm OK" check-ins on scene`;
    if (await raiseAlert(deps.db, deps.clock, { kind: 'missed_check_in', responder_id: check.responder_id, incident_id: check.incident_id, organization_id: hand.organization_id, message })) pass.alertsOpened++;
    if (missed >= 2 && !check.raised_at) {
      await raiseToTop(deps, check.incident_id, 'missed_check_ins', `${name} missed two "I'm OK" check-ins on scene`);
      pass.raised++;
    }
  }

  // Condition alerts: what holds now.
  const hour = hourIn(now, deps.settings.timeZone);
  // The areas each responder is on shift for now, with their shapes.
  const onShift = new Map<string, Array<{ name: string; shape: AreaShape }>>();
  for (const shift of shifts) {
    if (!shiftCovers(shift, hour)) continue;
    onShift.set(shift.responder_id, [...(onShift.get(shift.responder_id) ?? []), { name: shift.area_name, shape: JSON.parse(shift.area_shape) as AreaShape }]);
  }
  const wanted = new Map<string, AlertDraft>();
  const want = (draft: AlertDraft) => wanted.set(keyOf(draft), draft);
  for (const row of rows) {
    const hand = hands.get(row.responder_id);
    const duty = dutyOf(row, hand, offers.get(row.responder_id));
    const base = { responder_id: row.responder_id, incident_id: null, organization_id: null };
    if (duty.duty_status === 'off_duty' && onShift.has(row.responder_id)) want({ ...base, kind: 'on_shift_off_duty', message: `${row.name} is on shift now and not on duty` });
    // On duty, free, and the fresh fix outside every area of their shifts: not covering them. Busy
    // (offered, en route, on scene) is their work wherever it takes them; no fresh fix is `no_fix`'s.
    const areas = onShift.get(row.responder_id);
    if (areas && duty.duty_status === 'available' && row.latitude !== null && row.longitude !== null && freshFix(row.location_at, nowMs, deps.settings.fixMaxAgeS)) {
      const point = { latitude: Number(row.latitude), longitude: Number(row.longitude) };
      const nearest = areas.map((area) => ({ name: area.name, metres: metresOutside(area.shape, point) })).sort((a, b) => a.metres - b.metres)[0]!;
      if (nearest.metres > AREA_EDGE_ALLOWANCE_M) {
        want({ ...base, kind: 'on_shift_outside_area', message: `${row.name} is on shift for ${nearest.name} and on duty outside it (${distanceWords(nearest.metres)} from its edge when seen)` });
      }
    }
    if (duty.duty_status === 'available') {
      const fixAge = row.location_at ? nowMs - Date.parse(row.location_at) : Number.POSITIVE_INFINITY;
      if (fixAge >= deps.settings.noFixAlertS * 1000) want({ ...base, kind: 'no_fix', message: row.location_at ? `${row.name} is available with no fix for ${ageWords(fixAge)}` : `${row.name} is available and has never sent a fix` });
    }
    const limit = duty.duty_status in deps.settings.limits ? deps.settings.limits[duty.duty_status as keyof DutySettings['limits']] : undefined;
    if (limit !== undefined && duty.status_since && nowMs - Date.parse(duty.status_since) > limit * 1000) {
      const words = duty.duty_status.replace(/_/g, ' ');
      want({
        kind: 'status_overdue',
        variant: duty.duty_status,
        responder_id: row.responder_id,
        incident_id: hand?.incident_id ?? null,
        organization_id: hand?.organization_id ?? null,
        message: `${row.name} has been ${words} for ${ageWords(nowMs - Date.parse(duty.status_since))} (limit ${ageWords(limit * 1000)})`,
      });
    }
  }
  for (const open of await store.openAlertRows(deps.db)) {
    if (!CONDITION_KINDS.has(open.kind) || wanted.has(open.open_key!)) {
      wanted.delete(open.open_key!);
      continue;
    }
    await store.clearAlert(deps.db, open.alert_id, now.toISOString());
    pass.alertsCleared++;
  }
  for (const draft of wanted.values()) if (await raiseAlert(deps.db, deps.clock, draft)) pass.alertsOpened++;
  // A missed check-in's alert ends with the case (resolved, cancelled, reassigned).
  for (const open of await store.openAlertRows(deps.db)) {
    if (open.kind !== 'missed_check_in' || (open.incident_id && onScene.has(open.incident_id))) continue;
    await store.clearAlert(deps.db, open.alert_id, now.toISOString());
    pass.alertsCleared++;
  }
  return pass;
}

/** The duty look as a job of the runner (server/jobs/runner.ts): every ALERTS_EVERY_S. */
export function dutyJob(deps: DutyDeps, everyMs: number, options: { timed: boolean } = { timed: true }): Job<DutyPass> {
  return {
    name: 'duty-alerts',
    everyMs,
    timed: options.timed,
    runOnce: () => dutyPass(deps),
    failure: 'the duty look (alerts, check-ins) failed; the next one retries',
    report(pass, logger) {
      if (pass.missedCheckIns || pass.raised || pass.alertsOpened) logger.info({ duty: pass }, 'duty alerts');
    },
  };
}
