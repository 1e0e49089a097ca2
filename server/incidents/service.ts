import type { Page } from '../../shared/schemas/common.ts';
import {
  ACTIVE_INCIDENT_STATUSES,
  defaultIncidentTitle,
  INCIDENT_CATEGORIES,
  INCIDENT_SEVERITIES,
  INCIDENT_STATUSES,
  type GUARD_REPORTS,
  type CreateIncidentRequest,
  type Incident,
  type IncidentAnalytics,
  type IncidentCategory,
  type IncidentSeverity,
  type IncidentStatus,
  type TimelineEventName,
} from '../../shared/schemas/incidents.ts';
import { happenedAt } from '../access-logs/replay-window.ts';
import { addSeconds, type Clock } from '../clock.ts';
import type { IntervalReport } from '../../shared/schemas/intervals.ts';
import { inTransaction, isPostgres, type Executor, type IncidentRow, type TimelineRow } from '../db/schema.ts';
import { transactionGroup } from '../db/transaction-group.ts';
import { appendEvent, completePlannedEvent, planEvent, type EventDeps, type NewEvent } from '../events/service.ts';
import { conflict, notFound } from '../http/errors.ts';
import type { PageRequest } from '../db/paged.ts';
import { histogramCount, percentileOf } from '../db/histogram.ts';
import type { Histogram } from '../db/tallies.ts';
import { toPage, utcInstant } from '../http/pagination.ts';
import { newId } from '../ids.ts';
import { siteOfKiosk } from '../kiosks/service.ts';
import { defaultSiteFor, placeNamedIn } from '../sites/service.ts';
import type { DispatchOpening } from './dispatcher.ts';
import { rowToIncident } from './incident.ts';
import { intervalReport, intervalWindow } from './intervals.ts';
import { StaleIncidentError, openIncident, transitionIncident, withLatestIncident } from './lifecycle.ts';
import {
  appendTimelineRow,
  countIncidents,
  countIncidentsByKind,
  responseTimesOf,
  findIncident,
  findIncidentByIdempotencyKey,
  findIncidentWithTimeline,
  insertIncidentOpenings,
  insertIncidentWithTimeline,
  intervalRows,
  listIncidentRows,
  searchIncidentRows,
  timelinesOf,
  updateIncidentAtVersion,
  type Tenant,
} from './store.ts';

export interface IncidentWindows {
  dispatchWindowS: number;
  escalationWindowS: number;
}

export interface IncidentDeps extends EventDeps {
  windows: IncidentWindows;
  /** Dispatch's opening, in the creating transaction (server/dispatch/engine.ts). */
  opening?: (row: IncidentRow) => DispatchOpening;
  /** Dispatch's part of a cancel, in the same transaction (server/dispatch/engine.ts). */
  onCancelled?: (trx: Executor, incidentId: string) => Promise<void>;
  /** The call list's all-clear when the alarm ends, in the same transaction (server/messages/alarms.ts). */
  allClear?: (trx: Executor, row: IncidentRow, cause: 'false_alarm' | 'cancelled', guard?: string) => Promise<number>;
  /** The request's audit entry, written in the creating transaction (server/audit/middleware.ts, `auditHookOf`). */
  audit?: (trx: Executor, incidentId: string) => Promise<void>;
}

export async function loadIncident(db: Executor, tenant: Tenant, incidentId: string): Promise<Incident | undefined> {
  const found = await findIncidentWithTimeline(db, tenant, incidentId);
  return found && rowToIncident(found.row, found.timeline);
}

export async function getIncident(db: Executor, tenant: Tenant, incidentId: string): Promise<Incident> {
  const incident = await loadIncident(db, tenant, incidentId);
  if (!incident) throw notFound('Incident');
  return incident;
}

/**
 * Reports an incident: created and handed to dispatch (`dispatching`) in one transaction, with
 * one `incident.created` event. On PostgreSQL the incident, its timeline, its event and
 * deliveries, and dispatch's search are one statement (`insertIncidentOpenings`), sent with the
 * BEGIN; the first offers and the audit entry are deferred writes that go with the COMMIT: two
 * round trips in all, shared by the SOSs that arrive together (`openIncidents`). A known `idempotency_key` answers the
 * first incident instead (`created: false`), whatever the body says (reference rule 2).
 */
export async function createIncident(
  db: Executor,
  deps: IncidentDeps,
  tenant: Tenant,
  input: CreateIncidentRequest,
): Promise<{ incident: Incident; created: boolean }> {
  if (input.idempotency_key !== undefined) {
    const existing = await findIncidentByIdempotencyKey(db, tenant, input.idempotency_key);
    if (existing) return { incident: await getIncident(db, tenant, existing.incident_id), created: false };
  }
  const place = input.site_id === undefined ? undefined : await placeNamedIn(db, tenant, { site_id: input.site_id }, { active: true });
  // A gate kiosk's SOS names its kiosk: it happened at the kiosk's site. A caller limited to
  // sites reports at one of theirs (an incident at no site is the whole organization's).
  const kioskId = input.subject.metadata?.kiosk_id;
  const siteId =
    place?.siteId ??
    (kioskId ? await siteOfKiosk(db, tenant, kioskId, input.subject.metadata?.entry_point) : undefined) ??
    (tenant.sites ? await defaultSiteFor(db, tenant) : undefined);
  const sos = sosOpening(deps, tenant, input, siteId ?? null);
  const incident = await openIncidents(db, sos);
  if (incident) return { incident, created: true };
  // Two creates with one idempotency_key raced: the loser answers the winner's incident.
  const winner = await findIncidentByIdempotencyKey(db, tenant, input.idempotency_key!);
  return { incident: await getIncident(db, tenant, winner!.incident_id), created: false };
}

/** An SOS ready to be written: its row, opening timeline, event and dispatch, built before any statement. */
interface SosOpening {
  deps: IncidentDeps;
  tenant: Tenant;
  row: IncidentRow;
  timeline: TimelineRow[];
  incident: Incident;
  event: NewEvent;
  dispatch: DispatchOpening | undefined;
}

function sosOpening(deps: IncidentDeps, tenant: Tenant, input: CreateIncidentRequest, siteId: string | null): SosOpening {
  const now = deps.clock.now();
  const at = now.toISOString();
  const incidentId = newId('inc', now);
  const dispatchDeadline = addSeconds(now, deps.windows.dispatchWindowS);
  const opening = openIncident(incidentId, at, {
    created: input.is_drill ? 'Drill incident reported' : 'Incident reported',
    dispatched: dispatchMessage(tenant.environment, input.is_drill),
  });
  const row: IncidentRow = {
    incident_id: incidentId,
    organization_id: tenant.organizationId,
    environment: tenant.environment,
    idempotency_key: input.idempotency_key ?? null,
    category: input.category,
    severity: input.severity,
    status: opening.status,
    title: input.title ?? defaultIncidentTitle(input.category, input.severity),
    description: input.description ?? null,
    is_drill: input.is_drill ? 1 : 0,
    subject_name: input.subject.name,
    subject_phone: input.subject.phone ?? null,
    subject_email: input.subject.email ?? null,
    subject_reference: input.subject.reference ?? null,
    subject_metadata: JSON.stringify(input.subject.metadata ?? {}),
    longitude: input.location.coordinates[0],
    latitude: input.location.coordinates[1],
    address: input.location.address ?? null,
    landmark: input.location.landmark ?? null,
    version: opening.version,
    dispatch_deadline: dispatchDeadline.toISOString(),
    escalation_deadline: addSeconds(dispatchDeadline, deps.windows.escalationWindowS).toISOString(),
    assigned_at: null,
    on_scene_at: null,
    resolution_outcome: null,
    resolution_notes: null,
    created_at: at,
    updated_at: at,
    resolved_at: null,
    cancelled_at: null,
    responder_id: null,
    responder_name: null,
    responder_phone: null,
    responder_latitude: null,
    responder_longitude: null,
    eta_minutes: null,
    next_step_at: null,
    dispatch_round: 0,
    site_id: siteId,
  };
  const dispatch = deps.opening?.(row);
  if (dispatch) Object.assign(row, dispatch.columns);
  const incident = rowToIncident(row, opening.timeline);
  return { deps, tenant, row, timeline: opening.timeline, incident, event: { ...tenant, type: 'incident.created', resourceId: incidentId, data: incident }, dispatch };
}

/**
 * Writes SOSs: the incident, its timeline, its event and deliveries, the first offers and the
 * request's audit entry, in one transaction; undefined for one whose idempotency_key another
 * create took first. On PostgreSQL the SOSs that arrive together share a transaction
 * (server/db/transaction-group.ts): their opening statements leave in one write with the BEGIN
 * and their offers and audit entries ride with the one COMMIT, two flights for all of them.
 */
const openIncidents = transactionGroup<SosOpening, Incident | undefined>({
  together: openOnPostgres,
  alone: (db, sos) =>
    inTransaction(db, async (trx) => {
      if (isPostgres(trx)) return (await openOnPostgres(trx, [sos]))[0];
      // SQLite: each statement is a call into this process, not a round trip.
      if (!(await insertIncidentWithTimeline(trx, sos.row, sos.timeline))) return undefined;
      await appendEvent(trx, sos.deps, sos.event);
      await sos.dispatch?.offer?.(trx);
      await sos.deps.audit?.(trx, sos.row.incident_id);
      return sos.incident;
    }),
});

/**
 * PostgreSQL: SOSs in one transaction. One statement each (the incident, its timeline, its event
 * and deliveries, and the first round's candidates), all sent at once; then, for each, deferred
 * writes that ride with the COMMIT: the first offers and the request's audit entry. Undefined for
 * an SOS whose idempotency_key another create took first.
 */
async function openOnPostgres(trx: Executor, all: readonly SosOpening[]): Promise<Array<Incident | undefined>> {
  const planned = all.map((sos) => planEvent(sos.deps, sos.event));
  const written = await insertIncidentOpenings(
    trx,
    all.map((sos, i) => ({ row: sos.row, timeline: sos.timeline, event: planned[i]!, search: sos.dispatch?.search })),
  );
  const answers: Array<Incident | undefined> = [];
  for (const [i, sos] of all.entries()) {
    if (!written[i]!.created) {
      answers.push(undefined);
      continue;
    }
    await completePlannedEvent(trx, sos.deps, planned[i]!, written[i]!.eventWritten);
    await sos.dispatch?.offer?.(trx, sos.dispatch.search && written[i]!.candidates);
    await sos.deps.audit?.(trx, sos.row.incident_id);
    answers.push(sos.incident);
  }
  return answers;
}

function dispatchMessage(environment: string, isDrill: boolean): string {
  if (environment === 'sandbox') return 'Dispatching to the simulated responder network (sandbox)';
  if (isDrill) return 'Dispatching to the simulated responder network (drill)';
  return 'Dispatching to the nearest available responders';
}

export interface IncidentListQuery extends PageRequest {
  site_id?: string;
  status?: IncidentStatus | 'active';
  category?: IncidentCategory;
  severity?: IncidentSeverity;
  search?: string;
  from_date?: string;
  to_date?: string;
}

export async function listIncidents(db: Executor, tenant: Tenant, query: IncidentListQuery): Promise<Page<Incident>> {
  const filter = {
    ...(query.status === 'active' ? { statusIn: ACTIVE_INCIDENT_STATUSES } : { status: query.status }),
    siteId: query.site_id,
    category: query.category,
    severity: query.severity,
    search: query.search,
    createdFrom: utcInstant(query.from_date),
    createdBefore: utcInstant(query.to_date),
  };
  const [paged, total] =
    filter.search ? await searchIncidentRows(db, tenant, filter, query) : await Promise.all([listIncidentRows(db, tenant, filter, query), countIncidents(db, tenant, filter)]);
  const timelines = await timelinesOf(
    db,
    paged.rows.map((row) => row.incident_id),
  );
  return toPage(
    paged.rows.map((row) => rowToIncident(row, timelines.get(row.incident_id) ?? [])),
    total,
    paged,
    query.limit,
  );
}

export async function cancelIncident(
  db: Executor,
  deps: IncidentDeps,
  tenant: Tenant,
  incidentId: string,
  reason: string | undefined,
  by?: Acknowledger,
): Promise<Incident> {
  // A person in the console is named (issue #48); a key is the partner, as the reference has it.
  const who = by?.type === 'person' ? by.label : 'partner';
  return withLatestIncident(db, (trx) => findIncident(trx, tenant, incidentId), async (trx, row) => {
    await transitionIncident(trx, deps, row, 'cancelled', {
      message: reason ? `Cancelled by ${who}: ${reason}` : `Cancelled by ${who}`,
      represent: (executor, id) => getIncident(executor, tenant, id),
    });
    await deps.onCancelled?.(trx, incidentId);
    await deps.allClear?.(trx, row, 'cancelled');
    return getIncident(trx, tenant, incidentId);
  });
}

/** A note on an active incident: a timeline entry at the current status and an `incident.note_added` event. Terminal: 409. */
export async function addIncidentNote(
  db: Executor,
  deps: IncidentDeps,
  tenant: Tenant,
  incidentId: string,
  message: string,
  by?: Acknowledger,
): Promise<Incident> {
  // A person's note says who wrote it in the timeline (issue #48); a key's stays as written.
  const entry = by?.type === 'person' ? `${by.label}: ${message}` : message;
  return withLatestIncident(db, (trx) => findIncident(trx, tenant, incidentId), async (trx, row) => {
    if (row.status === 'resolved' || row.status === 'cancelled') throw conflict(`Incident is already ${row.status}`);
    const at = deps.clock.now().toISOString();
    const changed = await updateIncidentAtVersion(trx, incidentId, Number(row.version), {
      version: Number(row.version) + 1,
      updated_at: at,
    });
    if (!changed) throw new StaleIncidentError();
    await appendTimelineRow(trx, { incident_id: incidentId, status: row.status, event: 'note', message: entry, timestamp: at });
    const incident = await getIncident(trx, tenant, incidentId);
    // Beyond the reference's events: a webhook gets it only when it names the type exactly.
    await appendEvent(trx, deps, { ...tenant, type: 'incident.note_added', resourceId: incidentId, data: { ...incident, note: { message, timestamp: at } } });
    return incident;
  });
}

/**
 * An entry about the incident made by something other than its status (a text message sent,
 * delivered or failed): at the current status, in any status (a delivery report may come after
 * the incident ended), with a new version and an `incident.updated` event so the board and
 * webhook receivers see it.
 */
export async function addIncidentTimelineEntry(
  db: Executor,
  deps: EventDeps,
  tenant: Tenant,
  incidentId: string,
  entry: { event: Extract<TimelineEventName, 'sms_sent' | 'sms_delivered' | 'sms_failed'>; message: string },
): Promise<void> {
  await withLatestIncident(db, (trx) => findIncident(trx, tenant, incidentId), async (trx, row) => {
    const at = deps.clock.now().toISOString();
    const changed = await updateIncidentAtVersion(trx, incidentId, Number(row.version), { version: Number(row.version) + 1, updated_at: at });
    if (!changed) throw new StaleIncidentError();
    await appendTimelineRow(trx, { incident_id: incidentId, status: row.status, event: entry.event, message: entry.message, timestamp: at });
    await appendEvent(trx, deps, { ...tenant, type: 'incident.updated', resourceId: incidentId, data: await getIncident(trx, tenant, incidentId) });
  });
}

/**
 * The gate's guard reports what they did about an SOS: called for help, or a false alarm. A
 * timeline entry naming the guard at the current status, a new version and an `incident.updated`
 * event; the status stays (operators cancel or resolve). `texts`: the site's call list is told in
 * the same transaction (server/messages/alarms.ts: a false alarm ends the alarm texts with the
 * all-clear). A finished incident: 409.
 */
export async function reportFromGuard(
  db: Executor,
  deps: IncidentDeps & { texts?: (trx: Executor, row: IncidentRow, reason: GuardReport, guard?: string) => Promise<number> },
  tenant: Tenant,
  incidentId: string,
  input: { report: GuardReport; guard?: string; note?: string; reported_at?: string },
): Promise<Incident> {
  const reportedAt = happenedAt(deps.clock, input.reported_at, 'reported_at');
  return withLatestIncident(db, (trx) => findIncident(trx, tenant, incidentId), async (trx, row) => {
    if (row.status === 'resolved' || row.status === 'cancelled') throw conflict(`Incident is already ${row.status}`);
    const at = deps.clock.now().toISOString();
    const changed = await updateIncidentAtVersion(trx, incidentId, Number(row.version), { version: Number(row.version) + 1, updated_at: at });
    if (!changed) throw new StaleIncidentError();
    const who = input.guard ?? 'The guard';
    const said = input.report === 'called_for_help' ? `${who} called for help` : `${who} reported a false alarm`;
    await appendTimelineRow(trx, {
      incident_id: incidentId,
      status: row.status,
      event: input.report,
      message: `${said}${input.note ? `: ${input.note}` : ''}`,
      timestamp: reportedAt.toISOString(),
    });
    await deps.texts?.(trx, row, input.report, input.guard);
    const incident = await getIncident(trx, tenant, incidentId);
    await appendEvent(trx, deps, { ...tenant, type: 'incident.updated', resourceId: incidentId, data: incident });
    return incident;
  });
}

export type GuardReport = (typeof GUARD_REPORTS)[number];

/** Who acknowledges or cancels: the console person's name (else email) or the key's name (`req.auth.actor`). */
export interface Acknowledger {
  type: 'key' | 'person';
  label: string;
}

/**
 * An operator has seen an escalated or unresponsive incident: a timeline entry `acknowledged`
 * at the current status naming who, a new version and an `incident.updated` event. The status
 * is dispatch's to change, so it stays. Any other status: 409 naming it.
 */
export async function acknowledgeIncident(
  db: Executor,
  deps: IncidentDeps,
  tenant: Tenant,
  incidentId: string,
  by: Acknowledger,
): Promise<Incident> {
  return withLatestIncident(db, (trx) => findIncident(trx, tenant, incidentId), async (trx, row) => {
    if (row.status !== 'escalated' && row.status !== 'unresponsive') {
      throw conflict(`Incident is ${row.status}: only an escalated or unresponsive incident is acknowledged`);
    }
    const at = deps.clock.now().toISOString();
    const changed = await updateIncidentAtVersion(trx, incidentId, Number(row.version), {
      version: Number(row.version) + 1,
      updated_at: at,
    });
    if (!changed) throw new StaleIncidentError();
    const who = by.type === 'key' ? `API key "${by.label}"` : by.label;
    await appendTimelineRow(trx, { incident_id: incidentId, status: row.status, event: 'acknowledged', message: `Acknowledged by ${who}`, timestamp: at });
    const incident = await getIncident(trx, tenant, incidentId);
    await appendEvent(trx, deps, { ...tenant, type: 'incident.updated', resourceId: incidentId, data: incident });
    return incident;
  });
}

function durationsOf(histogram: Histogram) {
  const median = percentileOf(histogram, 0.5);
  const p90 = percentileOf(histogram, 0.9);
  return { count: histogramCount(histogram), median: median.value, p90: p90.value, approximate: median.approximate || p90.approximate };
}

const zeros = <T extends string>(values: readonly T[]) => Object.fromEntries(values.map((value) => [value, 0])) as Record<T, number>;

/**
 * The control room's figures over the incidents created in the window: counts by category,
 * (current) status and severity, and how long assignment and arrival took, as each incident's
 * `sla` reports them.
 */
export async function incidentAnalytics(
  db: Executor,
  tenant: Tenant,
  query: { from_date?: string; to_date?: string },
): Promise<IncidentAnalytics> {
  const window = { createdFrom: utcInstant(query.from_date), createdBefore: utcInstant(query.to_date) };
  const [kinds, times] = await Promise.all([countIncidentsByKind(db, tenant, window), responseTimesOf(db, tenant, window)]);
  const byCategory = zeros(INCIDENT_CATEGORIES);
  const byStatus = zeros(INCIDENT_STATUSES);
  const bySeverity = zeros(INCIDENT_SEVERITIES);
  let total = 0;
  for (const { category, status, severity, n } of kinds) {
    byCategory[category as IncidentCategory] += n;
    byStatus[status as IncidentStatus] += n;
    bySeverity[severity as IncidentSeverity] += n;
    total += n;
  }
  return {
    from_date: window.createdFrom ?? null,
    to_date: window.createdBefore ?? null,
    total,
    by_category: byCategory,
    by_status: byStatus,
    by_severity: bySeverity,
    seconds_to_assign: durationsOf(times.toAssign),
    seconds_to_arrive: durationsOf(times.toArrive),
  };
}

/** The incidents' tallies (server/db/tallies.ts), folded in the background. */
export { INCIDENT_TALLY } from './store.ts';

/** The partner's response intervals (issue #47): their own incidents of the window, grouped (server/incidents/intervals.ts). */
export async function partnerIntervalReport(db: Executor, clock: Clock, tenant: Tenant, query: { from_date?: string; to_date?: string; site_id?: string; group_by: 'day' | 'site' | 'responder' }): Promise<IntervalReport> {
  const window = intervalWindow(query, clock.now());
  return intervalReport(await intervalRows(db, tenant, window, query.site_id), window, query.group_by);
}
