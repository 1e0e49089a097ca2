import type { ResolutionOutcome } from '../../shared/schemas/incidents.ts';
import type { DispatchOfferRow, Executor, IncidentRow, ResponderRow } from '../db/schema.ts';
import { conflict } from '../http/errors.ts';
import { newId } from '../ids.ts';
import { recordIncidentEntry, transitionIncident } from '../incidents/lifecycle.ts';
import { appendEvent, type EventDeps } from '../events/service.ts';
import { representIncident, withIncident } from './engine.ts';
import { distanceKm } from './nearest.ts';
import { closeOpenOffers, hasActiveAssignment, withdrawOfferTo, insertOffer, markStoodDown, offersOfIncident, reopenOffer, setNextStepAt, setResponderAvailable } from './store.ts';

/**
 * A Tsaro controller's dispatch (issue #47): an offer to one chosen responder, a reassignment,
 * a close with an outcome. Each is a timeline entry naming the controller ("Tsaro control
 * (Kemi)") and an event of its own type; an offer reaches the responder's phone exactly as the
 * engine's do (an open row in dispatch_offers, which `/v1/responder/offers` reads).
 */
export interface Controller {
  staffId: string;
  /** "Tsaro control (Kemi)". */
  by: string;
}

export interface ManualDispatchDeps extends EventDeps {
  db: Executor;
}

const OPEN_FOR_OFFERS = new Set(['dispatching', 'escalated', 'unresponsive']);

const control = (controller: Controller, action: string, message: string, at: string) => ({ control: { action, by: controller.by, message, at } });

/** Offers the incident to one verified responder of its environment who is free; one who declined before may be asked again. */
export async function offerByControl(deps: ManualDispatchDeps, controller: Controller, incidentId: string, responder: ResponderRow): Promise<{ offer_id: string }> {
  return withIncident(deps.db, incidentId, async (trx, incident) => {
    if (!OPEN_FOR_OFFERS.has(incident.status)) throw conflict(`Incident is ${incident.status}: ${incident.status === 'assigned' || incident.status === 'responding' ? 'reassign it first' : 'nothing to offer'}`);
    if (responder.environment !== incident.environment) throw conflict(`${responder.name} is in the ${responder.environment} network`);
    if ((responder.standing ?? 'verified') !== 'verified' || responder.status !== 'active') throw conflict(`${responder.name} is ${responder.status === 'active' ? responder.standing : responder.status}: only verified responders are offered incidents`);
    if (await hasActiveAssignment(trx, responder.responder_id)) throw conflict(`${responder.name} has an incident in hand`);
    const previous = (await offersOfIncident(trx, incidentId)).find((offer) => offer.responder_id === responder.responder_id);
    if (previous?.status === 'pending') throw conflict(`${responder.name} has this offer open already`);
    const at = deps.clock.now().toISOString();
    const offer: DispatchOfferRow = {
      offer_id: newId('ofr', deps.clock.now()),
      incident_id: incidentId,
      responder_id: responder.responder_id,
      round: Math.max(1, Number(incident.dispatch_round)),
      status: 'pending',
      distance_km: pointDistance(incident, responder),
      offered_at: at,
      answered_at: null,
      offered_by: controller.staffId,
      first_offered_at: at,
    };
    if (previous) await reopenOffer(trx, offer);
    else await insertOffer(trx, offer);
    const message = `${controller.by} offered it to ${responder.name}, ${offer.distance_km} km away`;
    await recordIncidentEntry(trx, deps, incident, {
      event: 'control_offered',
      message,
      type: 'incident.control_offered',
      extra: { ...control(controller, 'offered', message, at), offered_to: { responder_id: responder.responder_id, name: responder.name, distance_km: offer.distance_km } },
      represent: representIncident(incident),
    });
    return { offer_id: offer.offer_id };
  });
}

const pointDistance = (incident: IncidentRow, responder: ResponderRow) =>
  Math.round(distanceKm({ latitude: Number(incident.latitude), longitude: Number(incident.longitude) }, { latitude: Number(responder.latitude ?? 0), longitude: Number(responder.longitude ?? 0) }) * 100) / 100;

/** What an incident loses when its responder is stood down: the responder, and a fresh dispatch window from `now`. */
function backToDispatch(now: Date, windows: { dispatchWindowS: number; escalationWindowS: number }) {
  return {
    responder_id: null,
    responder_name: null,
    responder_phone: null,
    responder_latitude: null,
    responder_longitude: null,
    eta_minutes: null,
    assigned_at: null,
    dispatch_deadline: new Date(now.getTime() + windows.dispatchWindowS * 1000).toISOString(),
    escalation_deadline: new Date(now.getTime() + (windows.dispatchWindowS + windows.escalationWindowS) * 1000).toISOString(),
  };
}

/**
 * Stands the assigned responder down and sends the incident back to dispatch (assigned or
 * responding → dispatching) with a fresh dispatch window; the responder is free again.
 */
export async function reassignByControl(deps: ManualDispatchDeps, controller: Controller, incidentId: string, reason: string, windows: { dispatchWindowS: number; escalationWindowS: number }) {
  await withIncident(deps.db, incidentId, async (trx, incident) => {
    if (incident.status !== 'assigned' && incident.status !== 'responding') throw conflict(`Incident is ${incident.status}: only an assigned incident is reassigned`);
    const now = deps.clock.now();
    const at = now.toISOString();
    const message = `${controller.by} stood ${incident.responder_name ?? 'the responder'} down and sent it back to dispatch: ${reason}`;
    await transitionIncident(trx, deps, incident, 'dispatching', {
      message,
      changes: backToDispatch(now, windows),
      represent: representIncident(incident),
    });
    if (incident.responder_id && !incident.responder_id.startsWith('rsp_sim_')) {
      await setResponderAvailable(trx, incident.responder_id, true, at);
      // Their phone says who took it back and why (GET /v1/responder/offers/{id}).
      await markStoodDown(trx, incidentId, incident.responder_id, { by: controller.by, reason, at });
    }
    await appendEvent(trx, deps, {
      organizationId: incident.organization_id,
      environment: incident.environment,
      type: 'incident.control_reassigned',
      resourceId: incidentId,
      data: { ...((await representIncident(incident)(trx, incidentId)) as object), ...control(controller, 'reassigned', message, at), stood_down: { responder_id: incident.responder_id, name: incident.responder_name } },
    });
  });
}

const HOLDING = new Set(['assigned', 'responding', 'on_scene']);

/**
 * Stands one responder down (issue #47), saying why: an offer of the incident open to them is
 * withdrawn (a timeline entry `control_stood_down` at the current status: the controller offered
 * it to several and one is enough); the responder who holds it (assigned, responding or on scene)
 * is released and the incident goes back to dispatch with a fresh window (the status entry
 * `dispatched`), for another responder or for closing. The event `incident.control_stood_down`
 * either way; the responder's app loses the offer or the assignment.
 */
export async function standDownByControl(
  deps: ManualDispatchDeps,
  controller: Controller,
  incidentId: string,
  responder: Pick<ResponderRow, 'responder_id' | 'name'>,
  reason: string,
  windows: { dispatchWindowS: number; escalationWindowS: number },
): Promise<{ released: 'offer' | 'assignment' }> {
  return withIncident(deps.db, incidentId, async (trx, incident) => {
    const now = deps.clock.now();
    const at = now.toISOString();
    const stoodDown = { stood_down: { responder_id: responder.responder_id, name: responder.name, reason } };
    if (incident.responder_id === responder.responder_id && HOLDING.has(incident.status)) {
      const message = `${controller.by} stood ${responder.name} down: ${reason}`;
      await transitionIncident(trx, deps, incident, 'dispatching', {
        message,
        changes: backToDispatch(now, windows),
        represent: representIncident(incident),
      });
      if (!responder.responder_id.startsWith('rsp_sim_')) await setResponderAvailable(trx, responder.responder_id, true, at);
      await markStoodDown(trx, incidentId, responder.responder_id, { by: controller.by, reason, at });
      await appendEvent(trx, deps, {
        organizationId: incident.organization_id,
        environment: incident.environment,
        type: 'incident.control_stood_down',
        resourceId: incidentId,
        data: { ...((await representIncident(incident)(trx, incidentId)) as object), ...control(controller, 'stood_down', message, at), ...stoodDown },
      });
      return { released: 'assignment' as const };
    }
    if (!(await withdrawOfferTo(trx, incidentId, responder.responder_id, { by: controller.by, reason, at }))) {
      throw conflict(`${responder.name} has neither an open offer of this incident nor the incident in hand`);
    }
    const message = `${controller.by} stood ${responder.name} down (offer withdrawn): ${reason}`;
    await recordIncidentEntry(trx, deps, incident, {
      event: 'control_stood_down',
      message,
      type: 'incident.control_stood_down',
      extra: { ...control(controller, 'stood_down', message, at), ...stoodDown },
      represent: representIncident(incident),
    });
    return { released: 'offer' as const };
  });
}

/** Closes the incident with an outcome from any active status: open offers withdrawn, the responder freed. */
export async function closeByControl(deps: ManualDispatchDeps, controller: Controller, incidentId: string, outcome: ResolutionOutcome, notes: string | undefined) {
  await withIncident(deps.db, incidentId, async (trx, incident) => {
    const at = deps.clock.now().toISOString();
    const message = `${controller.by} closed it: ${outcome.replace(/_/g, ' ')}${notes ? ` (${notes})` : ''}`;
    await transitionIncident(trx, deps, incident, 'resolved', {
      message,
      changes: { resolution_outcome: outcome, resolution_notes: notes ?? null, next_step_at: null },
      represent: representIncident(incident),
    });
    await closeOpenOffers(trx, incidentId, 'withdrawn', at);
    await setNextStepAt(trx, incidentId, null);
    if (incident.responder_id && !incident.responder_id.startsWith('rsp_sim_')) {
      await setResponderAvailable(trx, incident.responder_id, true, at);
      // Their phone says Tsaro control closed it, and how.
      await markStoodDown(trx, incidentId, incident.responder_id, { by: controller.by, reason: `the incident is closed: ${outcome.replace(/_/g, ' ')}${notes ? ` (${notes})` : ''}`, at });
    }
    await appendEvent(trx, deps, {
      organizationId: incident.organization_id,
      environment: incident.environment,
      type: 'incident.control_closed',
      resourceId: incidentId,
      data: { ...((await representIncident(incident)(trx, incidentId)) as object), ...control(controller, 'closed', message, at) },
    });
  });
}
