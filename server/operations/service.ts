import type { ResolutionOutcome } from '../../shared/schemas/incidents.ts';
import type { QueueItem } from '../../shared/schemas/staff.ts';
import type { Clock } from '../clock.ts';
import type { Db } from '../db/schema.ts';
import type { WebhookQueue } from '../webhooks/queue.ts';
import { closeByControl, offerByControl, reassignByControl, standDownByControl, type Controller } from '../dispatch/manual.ts';
import { representIncident, withIncident } from '../dispatch/engine.ts';
import { freshFix } from '../dispatch/nearest.ts';
import { dutyByResponder, raisedIncidents } from '../duty/service.ts';
import { distanceKm } from '../geo.ts';
import { notFound } from '../http/errors.ts';
import { recordIncidentEntry } from '../incidents/lifecycle.ts';
import { getIncident } from '../incidents/service.ts';
import { responderById } from '../responders/service.ts';
import { siteSummaryOf } from '../sites/service.ts';
import { controlName, recordStaffAction, type StaffActor } from '../staff/service.ts';
import { queueOrder, urgencyOf } from './queue.ts';
import { liveActiveIncidents, liveIncidentById, offersWithNames, verifiedLiveResponders, type QueueRow } from './store.ts';

/**
 * The operations centre (issue #47): the queue of every live incident across organizations, an
 * incident's details, the nearest verified responders, and a controller's actions. Every action,
 * and every opening of an incident's details, goes to the service audit log.
 */
export interface OperationsDeps {
  db: Db;
  clock: Clock;
  webhookQueue: WebhookQueue;
  dispatchWindowS: number;
  escalationWindowS: number;
  /** DISPATCH_FIX_MAX_AGE_S: an older fix is listed after the fresh ones, never ranked by. */
  fixMaxAgeS: number;
}

const QUEUE_LIMIT = 500;

function queueItem(row: QueueRow, nowMs: number, dispatchWindowS: number): QueueItem {
  return {
    incident_id: row.incident_id,
    organization_id: row.organization_id,
    organization_name: row.organization_name,
    status: row.status as QueueItem['status'],
    category: row.category as QueueItem['category'],
    severity: row.severity as QueueItem['severity'],
    title: row.title,
    is_drill: Boolean(row.is_drill),
    urgency: urgencyOf(row, nowMs, dispatchWindowS),
    location: { latitude: Number(row.latitude), longitude: Number(row.longitude), address: row.address },
    created_at: row.created_at,
    updated_at: row.updated_at,
    dispatch_deadline: row.dispatch_deadline,
    escalation_deadline: row.escalation_deadline,
    responder_name: row.responder_name,
    owner: row.controller_id ? { staff_id: row.controller_id, name: row.controller_name ?? '', taken_at: row.controller_taken_at ?? row.updated_at } : null,
  };
}

export async function liveQueue(deps: OperationsDeps, options: { drills: boolean }): Promise<QueueItem[]> {
  const nowMs = deps.clock.now().getTime();
  const [rows, raised] = await Promise.all([liveActiveIncidents(deps.db, { drills: options.drills, limit: QUEUE_LIMIT }), raisedIncidents(deps.db)]);
  // A responder in danger (their panic, two missed check-ins) puts the case on top (server/duty/).
  return queueOrder(rows.map((row) => ({ ...queueItem(row, nowMs, deps.dispatchWindowS), ...(raised.has(row.incident_id) && { urgency: 'responder_in_danger' as const }) })));
}

async function liveIncident(deps: OperationsDeps, incidentId: string): Promise<QueueRow> {
  const row = await liveIncidentById(deps.db, incidentId);
  if (!row) throw notFound('Incident (live incidents only: sandbox has its simulated network)');
  return row;
}

/** An incident's details as the partner sees it, with its offers (declines and why): an opening recorded in the service audit log. */
export async function incidentDetails(deps: OperationsDeps, actor: StaffActor, incidentId: string) {
  const row = await liveIncident(deps, incidentId);
  const incident = await getIncident(deps.db, { organizationId: row.organization_id, environment: 'live' }, incidentId);
  const offers = (await offersWithNames(deps.db, incidentId)).map((offer) => ({
    offer_id: offer.offer_id,
    responder_id: offer.responder_id,
    responder_name: offer.responder_name,
    status: offer.status,
    round: Number(offer.round),
    distance_km: Number(offer.distance_km),
    offered_at: offer.offered_at,
    answered_at: offer.answered_at,
    offered_by: offer.offered_by ?? null,
    decline_reason: offer.decline_reason ?? null,
  }));
  await recordStaffAction(deps.db, deps.clock, actor, { action: 'openIncident', subjectType: 'incident', subjectId: incidentId, organizationId: row.organization_id });
  const urgency = (await raisedIncidents(deps.db)).has(incidentId) ? ('responder_in_danger' as const) : urgencyOf(row, deps.clock.now().getTime(), deps.dispatchWindowS);
  return { incident, organization_name: row.organization_name, urgency, owner: queueItem(row, 0, deps.dispatchWindowS).owner, offers };
}

/** The nearest verified responders to the incident: distance, status, age of their fix, skills, and any decline of it. */
export async function nearestCandidates(deps: OperationsDeps, incidentId: string, limit = 20) {
  const row = await liveIncident(deps, incidentId);
  const point = { latitude: Number(row.latitude), longitude: Number(row.longitude) };
  const offers = new Map((await offersWithNames(deps.db, incidentId)).map((offer) => [offer.responder_id, offer]));
  const nowMs = deps.clock.now().getTime();
  const located = (await verifiedLiveResponders(deps.db)).filter((responder) => responder.latitude !== null && responder.longitude !== null);
  const duties = await dutyByResponder(deps.db, located.map((responder) => responder.responder_id));
  return located
    .map((responder) => {
      const offer = offers.get(responder.responder_id);
      const duty = duties.get(responder.responder_id) ?? { duty_status: 'off_duty' as const, status_since: null, out_of_service_reason: null };
      const status = responder.busy ? 'busy' : offer?.status === 'pending' ? 'offered' : responder.available ? 'available' : 'off_duty';
      return {
        responder_id: responder.responder_id,
        name: responder.name,
        phone: responder.phone,
        distance_km: Math.round(distanceKm(point, { latitude: Number(responder.latitude), longitude: Number(responder.longitude) }) * 100) / 100,
        status: status as 'available' | 'offered' | 'busy' | 'off_duty',
        ...duty,
        fix_age_s: responder.location_at ? Math.max(0, Math.round((nowMs - Date.parse(responder.location_at)) / 1000)) : null,
        fix_stale: !freshFix(responder.location_at, nowMs, deps.fixMaxAgeS),
        skills: JSON.parse(responder.skills ?? '[]') as string[],
        declined: offer?.status === 'declined' ? { reason: offer.decline_reason ?? null, at: offer.answered_at ?? offer.offered_at } : null,
      };
    })
    // A stale fix never ranks: every fresh fix first, nearest first; then the stale ones.
    .sort((a, b) => Number(a.fix_stale) - Number(b.fix_stale) || a.distance_km - b.distance_km || a.responder_id.localeCompare(b.responder_id))
    .slice(0, limit);
}

const controllerOf = (actor: StaffActor): Controller => ({ staffId: actor.staffId, by: controlName(actor) });

async function audited<T>(deps: OperationsDeps, actor: StaffActor, row: QueueRow, action: string, detail: Record<string, unknown>, act: () => Promise<T>): Promise<T> {
  const result = await act();
  await recordStaffAction(deps.db, deps.clock, actor, { action, subjectType: 'incident', subjectId: row.incident_id, organizationId: row.organization_id, detail });
  return result;
}

/** The controller takes the incident: its owner from now on (taking it from another controller says so). */
export async function takeIncident(deps: OperationsDeps, actor: StaffActor, incidentId: string) {
  const row = await liveIncident(deps, incidentId);
  const by = controlName(actor);
  await audited(deps, actor, row, 'takeIncident', {}, () =>
    withIncident(deps.db, incidentId, async (trx, incident) => {
      const at = deps.clock.now().toISOString();
      const from = incident.controller_id && incident.controller_id !== actor.staffId ? ` from ${incident.controller_name}` : '';
      const message = `${by} is handling it${from}`;
      await recordIncidentEntry(trx, deps, incident, {
        event: 'control_taken',
        message,
        type: 'incident.control_taken',
        extra: { control: { action: 'taken', by, message, at } },
        changes: { controller_id: actor.staffId, controller_name: by, controller_taken_at: at },
        represent: representIncident(incident),
      });
    }),
  );
  return incidentDetails(deps, actor, incidentId);
}

export async function offerToResponder(deps: OperationsDeps, actor: StaffActor, incidentId: string, responderId: string) {
  const row = await liveIncident(deps, incidentId);
  const responder = await responderById(deps.db, responderId);
  if (!responder || responder.environment !== 'live') throw notFound('Responder');
  return audited(deps, actor, row, 'offerIncident', { responder_id: responderId }, () => offerByControl(deps, controllerOf(actor), incidentId, responder));
}

export async function reassignIncident(deps: OperationsDeps, actor: StaffActor, incidentId: string, reason: string) {
  const row = await liveIncident(deps, incidentId);
  await audited(deps, actor, row, 'reassignIncident', { reason }, () =>
    reassignByControl(deps, controllerOf(actor), incidentId, reason, { dispatchWindowS: deps.dispatchWindowS, escalationWindowS: deps.escalationWindowS }),
  );
}

/** Stands one responder down (an open offer withdrawn, or the responder holding it released): server/dispatch/manual.ts. */
export async function standDownResponder(deps: OperationsDeps, actor: StaffActor, incidentId: string, responderId: string, reason: string) {
  const row = await liveIncident(deps, incidentId);
  const responder = await responderById(deps.db, responderId);
  if (!responder || responder.environment !== 'live') throw notFound('Responder');
  return audited(deps, actor, row, 'standDownResponder', { responder_id: responderId, reason }, () =>
    standDownByControl(deps, controllerOf(actor), incidentId, responder, reason, { dispatchWindowS: deps.dispatchWindowS, escalationWindowS: deps.escalationWindowS }),
  );
}

/** What was done ("police on the way"): a timeline entry naming the controller. */
export async function noteByControl(deps: OperationsDeps, actor: StaffActor, incidentId: string, note: string) {
  const row = await liveIncident(deps, incidentId);
  const by = controlName(actor);
  await audited(deps, actor, row, 'noteIncident', { message: note }, () =>
    withIncident(deps.db, incidentId, async (trx, incident) => {
      const at = deps.clock.now().toISOString();
      const message = `${by}: ${note}`;
      await recordIncidentEntry(trx, deps, incident, {
        event: 'control_note',
        message,
        type: 'incident.control_note',
        extra: { control: { action: 'note', by, message: note, at } },
        represent: representIncident(incident),
      });
    }),
  );
}

export async function closeIncident(deps: OperationsDeps, actor: StaffActor, incidentId: string, outcome: ResolutionOutcome, notes?: string) {
  const row = await liveIncident(deps, incidentId);
  await audited(deps, actor, row, 'closeIncident', { outcome, notes: notes ?? null }, () => closeByControl(deps, controllerOf(actor), incidentId, outcome, notes));
}

/** Whom to call about the incident (tel: links on the controller's screen): the subject and the site's call list, in order. An opening recorded in the service audit log. */
export async function callList(deps: OperationsDeps, actor: StaffActor, incidentId: string) {
  const row = await liveIncident(deps, incidentId);
  const site = row.site_id ? ((await siteSummaryOf(deps.db, row.organization_id, row.site_id)) ?? null) : null;
  await recordStaffAction(deps.db, deps.clock, actor, { action: 'openCallList', subjectType: 'incident', subjectId: incidentId, organizationId: row.organization_id });
  return { subject: { name: row.subject_name, phone: row.subject_phone }, site };
}
