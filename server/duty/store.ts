import type { Executor, ResponderRow, SafetyCheckRow, ServiceAreaRow, ShiftRow, StaffAlertRow } from '../db/schema.ts';

/**
 * Duty's SQL (issue #47): areas, shifts, alerts and safety check-ins are this feature's tables;
 * it reads the network's responders, their open offers and the incidents in their hands as the
 * dispatch engine does, above tenants (a responder serves every organization). What it reads of
 * an incident is its id, organization, status and times: the incident itself is read through
 * the operations centre (server/operations/).
 */

const IN_HAND = ['assigned', 'responding', 'on_scene'];

export type DutyResponderRow = Pick<
  ResponderRow,
  'responder_id' | 'name' | 'environment' | 'status' | 'standing' | 'available' | 'latitude' | 'longitude' | 'location_at' | 'created_at' | 'duty_since' | 'out_of_service_reason' | 'out_of_service_at' | 'out_of_service_by'
>;

const DUTY_COLUMNS = ['responder_id', 'name', 'environment', 'status', 'standing', 'available', 'latitude', 'longitude', 'location_at', 'created_at', 'duty_since', 'out_of_service_reason', 'out_of_service_at', 'out_of_service_by'] as const;

/** Active, verified live responders (who may be on duty), or the given ones. */
export function dutyResponders(db: Executor, filter: { responderIds?: string[] } = {}): Promise<DutyResponderRow[]> {
  let query = db.selectFrom('responders').select(DUTY_COLUMNS);
  if (filter.responderIds) {
    if (!filter.responderIds.length) return Promise.resolve([]);
    query = query.where('responder_id', 'in', filter.responderIds);
  } else query = query.where('environment', '=', 'live').where('status', '=', 'active').where('standing', '=', 'verified');
  return query.execute() as Promise<DutyResponderRow[]>;
}

/** Since when each responder has had an offer open (the oldest open one). */
export async function openOfferSince(db: Executor): Promise<Map<string, string>> {
  const rows = await db.selectFrom('dispatch_offers').select(['responder_id']).select((eb) => eb.fn.min('offered_at').as('since')).where('status', '=', 'pending').groupBy('responder_id').execute();
  return new Map(rows.map((row) => [row.responder_id, String(row.since)]));
}

export interface InHandRow {
  responder_id: string;
  incident_id: string;
  organization_id: string;
  status: string;
  assigned_at: string | null;
  on_scene_at: string | null;
}

/** The incident in each responder's hands (assigned, responding, on scene). */
export async function incidentsInHand(db: Executor, responderId?: string): Promise<InHandRow[]> {
  let query = db
    .selectFrom('incidents')
    .select(['responder_id', 'incident_id', 'organization_id', 'status', 'assigned_at', 'on_scene_at'])
    .where('responder_id', 'is not', null)
    .where('status', 'in', IN_HAND)
    .where('environment', '=', 'live')
    .where('is_drill', '=', 0);
  if (responderId) query = query.where('responder_id', '=', responderId);
  return (await query.execute()) as InHandRow[];
}

export async function setOutOfService(db: Executor, responderId: string, change: { reason: string; at: string; by: string } | null, at: string): Promise<void> {
  await db
    .updateTable('responders')
    .set(
      change
        ? { out_of_service_reason: change.reason, out_of_service_at: change.at, out_of_service_by: change.by, available: 0, duty_since: at, updated_at: at }
        : { out_of_service_reason: null, out_of_service_at: null, out_of_service_by: null, duty_since: at, updated_at: at },
    )
    .where('responder_id', '=', responderId)
    .execute();
}

// ---- Areas and shifts ----

export const insertArea = (db: Executor, row: ServiceAreaRow) => db.insertInto('service_areas').values(row).execute();
export const listAreaRows = (db: Executor) => db.selectFrom('service_areas').selectAll().orderBy('name').orderBy('area_id').execute();
export const findArea = (db: Executor, areaId: string) => db.selectFrom('service_areas').selectAll().where('area_id', '=', areaId).executeTakeFirst();
export async function deleteArea(db: Executor, areaId: string): Promise<boolean> {
  return Number((await db.deleteFrom('service_areas').where('area_id', '=', areaId).executeTakeFirst()).numDeletedRows) > 0;
}
export async function shiftCountsByArea(db: Executor): Promise<Map<string, number>> {
  const rows = await db.selectFrom('shifts').select('area_id').select((eb) => eb.fn.countAll().as('n')).groupBy('area_id').execute();
  return new Map(rows.map((row) => [row.area_id, Number(row.n)]));
}

export const insertShift = (db: Executor, row: ShiftRow) => db.insertInto('shifts').values(row).execute();
/** A shift with its responder's and area's names, and the area's shape (JSON, as stored). */
export type ShiftView = ShiftRow & { responder_name: string; area_name: string; area_shape: string };
export function listShiftRows(db: Executor, filter: { areaId?: string; responderId?: string } = {}): Promise<ShiftView[]> {
  let query = db
    .selectFrom('shifts')
    .innerJoin('responders', 'responders.responder_id', 'shifts.responder_id')
    .innerJoin('service_areas', 'service_areas.area_id', 'shifts.area_id')
    .selectAll('shifts')
    .select(['responders.name as responder_name', 'service_areas.name as area_name', 'service_areas.shape as area_shape'])
    .orderBy('service_areas.name')
    .orderBy('shifts.start_hour')
    .orderBy('shifts.shift_id');
  if (filter.areaId) query = query.where('shifts.area_id', '=', filter.areaId);
  if (filter.responderId) query = query.where('shifts.responder_id', '=', filter.responderId);
  return query.execute() as Promise<ShiftView[]>;
}
export async function deleteShift(db: Executor, shiftId: string): Promise<boolean> {
  return Number((await db.deleteFrom('shifts').where('shift_id', '=', shiftId).executeTakeFirst()).numDeletedRows) > 0;
}

// ---- Alerts ----

/** Opens an alert unless one of its key is open (on any host): true when this call opened it. */
export async function openAlert(db: Executor, row: StaffAlertRow): Promise<boolean> {
  const result = await db.insertInto('staff_alerts').values(row).onConflict((oc) => oc.column('open_key').doNothing()).executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}
export const findAlert = (db: Executor, alertId: string) => db.selectFrom('staff_alerts').selectAll().where('alert_id', '=', alertId).executeTakeFirst();
export const openAlertRows = (db: Executor) => db.selectFrom('staff_alerts').selectAll().where('open_key', 'is not', null).execute();
export async function clearAlert(db: Executor, alertId: string, at: string): Promise<void> {
  await db.updateTable('staff_alerts').set({ cleared_at: at, open_key: null }).where('alert_id', '=', alertId).where('open_key', 'is not', null).execute();
}
export type AlertView = StaffAlertRow & { responder_name: string };
export function listAlertRows(db: Executor, state: 'open' | 'all'): Promise<AlertView[]> {
  let query = db
    .selectFrom('staff_alerts')
    .innerJoin('responders', 'responders.responder_id', 'staff_alerts.responder_id')
    .selectAll('staff_alerts')
    .select('responders.name as responder_name')
    .orderBy('staff_alerts.raised_at', 'desc')
    .orderBy('staff_alerts.alert_id', 'desc')
    .limit(200);
  if (state === 'open') query = query.where('staff_alerts.open_key', 'is not', null);
  return query.execute() as Promise<AlertView[]>;
}

// ---- Safety check-ins ----

export const safetyCheckOf = (db: Executor, incidentId: string) => db.selectFrom('safety_checks').selectAll().where('incident_id', '=', incidentId).executeTakeFirst();
export const safetyChecks = (db: Executor) => db.selectFrom('safety_checks').selectAll().execute();
/** A check-in row for an incident now on scene, unless it has one (any host). */
export async function startSafetyCheck(db: Executor, row: SafetyCheckRow): Promise<void> {
  await db.insertInto('safety_checks').values(row).onConflict((oc) => oc.column('incident_id').doNothing()).execute();
}
export async function recordCheckIn(db: Executor, incidentId: string, at: string, dueAt: string): Promise<void> {
  await db.updateTable('safety_checks').set({ last_ok_at: at, due_at: dueAt, missed: 0 }).where('incident_id', '=', incidentId).execute();
}
/** One more check-in missed, once across hosts: a compare-and-set on the due time it was missed at. */
export async function markMissed(db: Executor, row: SafetyCheckRow, nextDueAt: string): Promise<boolean> {
  const result = await db
    .updateTable('safety_checks')
    .set({ missed: Number(row.missed) + 1, due_at: nextDueAt })
    .where('incident_id', '=', row.incident_id)
    .where('due_at', '=', row.due_at)
    .where('missed', '=', row.missed)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
/** Raises the case to the top of the queue, once: false when it was raised already. */
export async function raiseCase(db: Executor, incidentId: string, why: string, at: string): Promise<boolean> {
  const result = await db.updateTable('safety_checks').set({ raised_at: at, raised_why: why }).where('incident_id', '=', incidentId).where('raised_at', 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
/** The incidents raised to the top of the queue. */
export async function raisedCases(db: Executor): Promise<Map<string, string>> {
  const rows = await db.selectFrom('safety_checks').select(['incident_id', 'raised_why']).where('raised_at', 'is not', null).execute();
  return new Map(rows.map((row) => [row.incident_id, row.raised_why ?? '']));
}
export async function deleteSafetyCheck(db: Executor, incidentId: string): Promise<void> {
  await db.deleteFrom('safety_checks').where('incident_id', '=', incidentId).execute();
}
