import type { Page } from '../../shared/schemas/common.ts';
import {
  defaultIncidentTitle,
  type CreateIncidentRequest,
  type Incident,
  type IncidentCategory,
  type IncidentSeverity,
  type IncidentStatus,
} from '../../shared/schemas/incidents.ts';
import { addSeconds, type Clock } from '../clock.ts';
import { inTransaction, type Executor, type IncidentRow } from '../db/schema.ts';
import { appendEvent } from '../events/service.ts';
import { conflict, notFound } from '../http/errors.ts';
import { pageWindow, toPage, utcInstant } from '../http/pagination.ts';
import { newId } from '../ids.ts';
import type { DispatchOpening } from './dispatcher.ts';
import { rowToIncident } from './incident.ts';
import { StaleIncidentError, openIncident, transitionIncident, withLatestIncident } from './lifecycle.ts';
import {
  appendTimelineRow,
  findIncident,
  findIncidentByIdempotencyKey,
  findIncidentWithTimeline,
  insertIncidentWithTimeline,
  listIncidentRows,
  timelinesOf,
  updateIncidentAtVersion,
  type Tenant,
} from './store.ts';

export interface IncidentWindows {
  dispatchWindowS: number;
  escalationWindowS: number;
}

export interface IncidentDeps {
  clock: Clock;
  windows: IncidentWindows;
  /** Dispatch's opening, in the creating transaction (server/dispatch/engine.ts). */
  opening?: (row: IncidentRow) => DispatchOpening;
  /** Dispatch's part of a cancel, in the same transaction (server/dispatch/engine.ts). */
  onCancelled?: (trx: Executor, incidentId: string) => Promise<void>;
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
 * Reports an incident: created and handed to dispatch (`dispatching`) in one transaction (on
 * PostgreSQL the incident and its timeline are one statement, its event another, then
 * dispatch's search and offers), with one `incident.created` event. A known `idempotency_key` answers the
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
  const incident = await inTransaction(db, async (trx) => {
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
    };
    const dispatch = deps.opening?.(row);
    if (dispatch) Object.assign(row, dispatch.columns);
    // Another create with this idempotency_key won.
    if (!(await insertIncidentWithTimeline(trx, row, opening.timeline))) return undefined;
    const incident = rowToIncident(row, opening.timeline);
    await appendEvent(trx, deps.clock, { ...tenant, type: 'incident.created', resourceId: incidentId, data: incident });
    await dispatch?.offer?.(trx);
    return incident;
  });
  if (incident) return { incident, created: true };
  // Two creates with one idempotency_key raced: the loser answers the winner's incident.
  const winner = await findIncidentByIdempotencyKey(db, tenant, input.idempotency_key!);
  return { incident: await getIncident(db, tenant, winner!.incident_id), created: false };
}

function dispatchMessage(environment: string, isDrill: boolean): string {
  if (environment === 'sandbox') return 'Dispatching to the simulated responder network (sandbox)';
  if (isDrill) return 'Dispatching to the simulated responder network (drill)';
  return 'Dispatching to the nearest available responders';
}

export interface IncidentListQuery {
  page: number;
  limit: number;
  status?: IncidentStatus;
  category?: IncidentCategory;
  severity?: IncidentSeverity;
  from_date?: string;
  to_date?: string;
}

export async function listIncidents(db: Executor, tenant: Tenant, query: IncidentListQuery): Promise<Page<Incident>> {
  const { rows, total } = await listIncidentRows(
    db,
    tenant,
    {
      status: query.status,
      category: query.category,
      severity: query.severity,
      createdFrom: utcInstant(query.from_date),
      createdBefore: utcInstant(query.to_date),
    },
    pageWindow(query),
  );
  const timelines = await timelinesOf(
    db,
    rows.map((row) => row.incident_id),
  );
  return toPage(
    rows.map((row) => rowToIncident(row, timelines.get(row.incident_id) ?? [])),
    total,
    query,
  );
}

export async function cancelIncident(
  db: Executor,
  deps: IncidentDeps,
  tenant: Tenant,
  incidentId: string,
  reason: string | undefined,
): Promise<Incident> {
  return withLatestIncident(db, (trx) => findIncident(trx, tenant, incidentId), async (trx, row) => {
    await transitionIncident(trx, deps.clock, row, 'cancelled', {
      message: reason ? `Cancelled by partner: ${reason}` : 'Cancelled by partner',
      represent: (executor, id) => getIncident(executor, tenant, id),
    });
    await deps.onCancelled?.(trx, incidentId);
    return getIncident(trx, tenant, incidentId);
  });
}

/** A note on an active incident: a timeline entry at the current status. Terminal: 409. */
export async function addIncidentNote(
  db: Executor,
  deps: IncidentDeps,
  tenant: Tenant,
  incidentId: string,
  message: string,
): Promise<Incident> {
  return withLatestIncident(db, (trx) => findIncident(trx, tenant, incidentId), async (trx, row) => {
    if (row.status === 'resolved' || row.status === 'cancelled') throw conflict(`Incident is already ${row.status}`);
    const at = deps.clock.now().toISOString();
    const changed = await updateIncidentAtVersion(trx, incidentId, Number(row.version), {
      version: Number(row.version) + 1,
      updated_at: at,
    });
    if (!changed) throw new StaleIncidentError();
    await appendTimelineRow(trx, { incident_id: incidentId, status: row.status, event: 'note', message, timestamp: at });
    return getIncident(trx, tenant, incidentId);
  });
}
