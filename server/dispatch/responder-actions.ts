import { recordVerifiedThreatEvent } from '../threat/verified.ts';
import { estatesForResponders, type EstateForResponder } from '../sites/service.ts';
import type { ResolutionOutcome } from '../../shared/schemas/incidents.ts';
import type { Offer, OfferOutcome } from '../../shared/schemas/responders.ts';
import type { EventDeps } from '../events/service.ts';
import type { Executor, IncidentRow, ResponderRow } from '../db/schema.ts';
import { conflict, notFound } from '../http/errors.ts';
import { recordIncidentEntry, transitionIncident } from '../incidents/lifecycle.ts';
import { representIncident, withIncident } from './engine.ts';
import { greatCircleKm } from '../geo.ts';
import { inTransaction } from '../db/schema.ts';
import { appendEvent } from '../events/service.ts';
import { etaMinutes } from './nearest.ts';
import {
  activeAssignmentOf,
  answerOffer,
  assignmentsOf,
  closeOpenOffers,
  findIncidentById,
  findOffer,
  hasActiveAssignment,
  offerOf,
  insertVerifiedIncident,
  pendingOfferIdsOf,
  pendingOffersFor,
  recordResponderLocation,
  setResponderAvailable,
  withdrawOtherOffers,
  declineWithReason,
  withdrawOffersOf,
} from './store.ts';

/** What a responder sees of an incident: enough to find and help the person, nothing of the partner's. */
export function responderView(row: IncidentRow, estate: EstateForResponder | null = null) {
  return {
    incident_id: row.incident_id,
    category: row.category,
    severity: row.severity,
    title: row.title,
    description: row.description,
    status: row.status,
    subject: { name: row.subject_name, phone: row.subject_phone },
    location: { coordinates: [Number(row.longitude), Number(row.latitude)] as [number, number], address: row.address, landmark: row.landmark },
    gate: gateOf(row),
    site: estate,
    eta_minutes: row.eta_minutes === null ? null : Number(row.eta_minutes),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** The gate a kiosk's SOS names (its `entry_point`), or null. */
function gateOf(row: IncidentRow): string | null {
  const metadata = JSON.parse(row.subject_metadata) as Record<string, string>;
  return metadata.entry_point ?? null;
}

/** One incident's view with its estate: what accepting, a status change or a resolution answers. */
async function viewWithEstate(db: Executor, row: IncidentRow) {
  return (await responderViews(db, [row]))[0]!.view;
}

/** Each incident's view with its estate, read in one query for all of them. */
async function responderViews<T extends IncidentRow>(db: Executor, rows: readonly T[]): Promise<Array<{ row: T; view: ReturnType<typeof responderView> }>> {
  const estates = await estatesForResponders(db, rows.map((row) => row.site_id));
  return rows.map((row) => ({ row, view: responderView(row, (row.site_id && estates.get(row.site_id)) || null) }));
}

/** The pending offers of these responders, open to them or not, by id (the offer bell's check, server/responders/offer-bell.ts). */
export function pendingOffersOf(db: Executor, responderIds: readonly string[]): Promise<Array<{ responder_id: string; offer_id: string }>> {
  return pendingOfferIdsOf(db, responderIds);
}

/**
 * The offers a responder may still answer. `answer_by` is when nobody accepting escalates the
 * incident (dispatching) or gives it up as unresponsive (escalated); after that it stays open.
 */
export async function offersOpenTo(db: Executor, responderId: string): Promise<Offer[]> {
  return (await responderViews(db, await pendingOffersFor(db, responderId))).map(({ row, view }) => ({
    offer_id: row.offer_id,
    distance_km: Number(row.distance_km),
    offered_at: row.offered_at,
    answer_by: row.status === 'dispatching' ? row.dispatch_deadline : row.status === 'escalated' ? row.escalation_deadline : null,
    incident: view,
  }));
}

/** A responder's incidents as the responder sees them: those in hand, and those changed since `since`. */
export async function responderAssignments(db: Executor, responderId: string, since: string) {
  return (await responderViews(db, await assignmentsOf(db, responderId, since))).map(({ view }) => view);
}

/** Outcomes that say something really happened: such a live incident becomes a verified threat event. */
const REAL_OUTCOMES: ReadonlySet<ResolutionOutcome> = new Set(['assisted', 'referred_to_authorities', 'medical_transport']);
const OPEN_FOR_ACCEPTANCE = new Set(['dispatching', 'escalated', 'unresponsive']);

/**
 * The first responder to accept is assigned, exactly once: the assignment is a compare-and-set
 * on the incident's version, so of two accepting together one wins and the other reads the
 * incident again, finds its offer lost, and gets a 409.
 */
export async function acceptOffer(db: Executor, deps: EventDeps, responder: ResponderRow, offerId: string) {
  const offer = await findOffer(db, offerId, responder.responder_id);
  if (!offer) throw notFound('Offer');
  return withIncident(db, offer.incident_id, async (trx, incident) => {
    const current = (await findOffer(trx, offerId, responder.responder_id))!;
    // A retry from a phone whose first answer was lost: the same answer again, not a 409.
    if (current.status === 'accepted' && incident.responder_id === responder.responder_id) return viewWithEstate(trx, incident);
    if (current.status !== 'pending') throw conflict(`Offer is ${current.status === 'lost' ? 'taken by another responder' : current.status}`);
    if (!OPEN_FOR_ACCEPTANCE.has(incident.status)) throw conflict(`Incident is already ${incident.status}`);
    if (await hasActiveAssignment(trx, responder.responder_id)) throw conflict('You already have an active incident: resolve it first');
    const eta = etaMinutes(Number(current.distance_km));
    await transitionIncident(trx, deps, incident, 'assigned', {
      message: `Accepted by ${responder.name}, about ${eta} min away`,
      changes: {
        responder_id: responder.responder_id,
        responder_name: responder.name,
        responder_phone: responder.phone,
        responder_latitude: responder.latitude,
        responder_longitude: responder.longitude,
        eta_minutes: eta,
        next_step_at: null,
      },
      represent: representIncident(incident),
    });
    const at = deps.clock.now().toISOString();
    await answerOffer(trx, offerId, 'accepted', at);
    await closeOpenOffers(trx, incident.incident_id, 'lost', at);
    await withdrawOtherOffers(trx, responder.responder_id, offerId, at);
    await setResponderAvailable(trx, responder.responder_id, false, at);
    return viewWithEstate(trx, (await findIncidentById(trx, incident.incident_id))!);
  });
}

/**
 * Declines an offer, with why: a timeline entry (who, when, why) and an `incident.offer_declined`
 * event, while the incident is active. The decliner may be asked again in a later round.
 */
export async function declineOffer(db: Executor, deps: EventDeps, responder: ResponderRow, offerId: string, reason?: string) {
  const offer = await findOffer(db, offerId, responder.responder_id);
  if (!offer) throw notFound('Offer');
  if (offer.status === 'declined') return { offer_id: offerId, status: 'declined' as const };
  return withIncident(db, offer.incident_id, async (trx, incident) => {
    const at = deps.clock.now().toISOString();
    if (!(await declineWithReason(trx, offerId, reason ?? null, at))) {
      const now = await findOffer(trx, offerId, responder.responder_id);
      if (now?.status === 'declined') return { offer_id: offerId, status: 'declined' as const };
      throw conflict(`Offer is already ${now?.status ?? offer.status}`);
    }
    if (OPEN_FOR_ACCEPTANCE.has(incident.status)) {
      await recordIncidentEntry(trx, deps, incident, {
        event: 'offer_declined',
        message: `Declined by ${responder.name}${reason ? `: ${reason}` : ' (no reason given)'}`,
        type: 'incident.offer_declined',
        extra: { declined: { responder_name: responder.name, reason: reason ?? null, at } },
        represent: representIncident(incident),
      });
    }
    return { offer_id: offerId, status: 'declined' as const };
  });
}

/** A suspended or retired responder is offered nothing more: their open offers are withdrawn. */
export async function withdrawOpenOffersOf(db: Executor, responderId: string, at: string): Promise<void> {
  await withdrawOffersOf(db, responderId, at);
}

function assignedIncident(responder: ResponderRow, incident: IncidentRow) {
  // Another responder's incident is none of this one's business: 404, as across organizations.
  if (incident.responder_id !== responder.responder_id) throw notFound('Incident');
}

/** `responding` (set off, with an ETA) and `on_scene` (arrived), in the state table's order. */
export async function reportProgress(
  db: Executor,
  deps: EventDeps,
  responder: ResponderRow,
  incidentId: string,
  status: 'responding' | 'on_scene',
  etaMinutesReported?: number,
) {
  return withIncident(db, incidentId, async (trx, incident) => {
    assignedIncident(responder, incident);
    // Reporting the status it already has (a retry) answers the incident again.
    if (incident.status === status) return viewWithEstate(trx, incident);
    await transitionIncident(trx, deps, incident, status, {
      message:
        status === 'responding'
          ? `${responder.name} is on the way${etaMinutesReported !== undefined ? `, about ${etaMinutesReported} min` : ''}`
          : `${responder.name} is on scene`,
      changes: { eta_minutes: status === 'on_scene' ? 0 : (etaMinutesReported ?? incident.eta_minutes) },
      represent: representIncident(incident),
    });
    return viewWithEstate(trx, (await findIncidentById(trx, incidentId))!);
  });
}

/**
 * Closes the incident with an outcome (and, through `allClear`, tells the site's call list the
 * alarm is over). A live, non-drill incident whose outcome says something
 * really happened is kept as a verified event for the threat engine: place, time, kind and
 * outcome, never subject data.
 */
export async function resolveAssigned(
  db: Executor,
  deps: EventDeps & { allClear?: (trx: Executor, row: IncidentRow) => Promise<number> },
  responder: ResponderRow,
  incidentId: string,
  outcome: ResolutionOutcome,
  notes: string | undefined,
) {
  return withIncident(db, incidentId, async (trx, incident) => {
    assignedIncident(responder, incident);
    // A retry from a phone whose first answer was lost: the same answer again, not a 409.
    if (incident.status === 'resolved' && incident.resolution_outcome === outcome) return viewWithEstate(trx, incident);
    // A responder closes from the scene only; a controller closes from any active status (operations/).
    if (incident.status !== 'on_scene' && incident.status !== 'resolved' && incident.status !== 'cancelled') throw conflict(`Incident cannot go from ${incident.status} to resolved`);
    await transitionIncident(trx, deps, incident, 'resolved', {
      message: `Resolved by ${responder.name}: ${outcome.replace(/_/g, ' ')}`,
      changes: { resolution_outcome: outcome, resolution_notes: notes ?? null },
      represent: representIncident(incident),
    });
    await deps.allClear?.(trx, incident);
    const at = deps.clock.now().toISOString();
    await setResponderAvailable(trx, responder.responder_id, true, at);
    if (incident.environment === 'live' && !incident.is_drill && REAL_OUTCOMES.has(outcome)) {
      await insertVerifiedIncident(trx, {
        incident_id: incident.incident_id,
        category: incident.category,
        severity: incident.severity,
        outcome,
        latitude: Number(incident.latitude),
        longitude: Number(incident.longitude),
        occurred_at: incident.created_at,
        resolved_at: at,
      });
      await recordVerifiedThreatEvent(trx, incident, at);
    }
    return viewWithEstate(trx, (await findIncidentById(trx, incidentId))!);
  });
}

/**
 * At most one `incident.responder_location` per incident this often. The responder app reports
 * on every 100 m moved and every minute (responder-app/src/presence.ts): a motorbike at 60 km/h
 * moves 100 m in 6 s, so without it an incident could send ten events a minute.
 */
export const RESPONDER_LOCATION_EVERY_S = 10;

/**
 * The responder's heartbeat, for the incident in hand: its position and the ETA from there
 * (the same estimate as at acceptance: 25 km/h over the great-circle distance; 0 on scene) are
 * written to the incident and reported as `incident.responder_location`, at most once per
 * incident every RESPONDER_LOCATION_EVERY_S (a report within that is dropped, position and all:
 * the next one after it carries the newer position).
 */
export async function reportResponderLocation(db: Executor, deps: EventDeps, responderId: string, position: { latitude: number; longitude: number }): Promise<void> {
  const incident = await activeAssignmentOf(db, responderId);
  if (!incident) return;
  await inTransaction(db, async (trx) => {
    const now = deps.clock.now();
    const at = now.toISOString();
    const etaMinutesNow = incident.status === 'on_scene' ? 0 : etaMinutes(greatCircleKm(position.latitude, position.longitude, Number(incident.latitude), Number(incident.longitude)));
    const recordedBefore = new Date(now.getTime() - RESPONDER_LOCATION_EVERY_S * 1000).toISOString();
    if (!(await recordResponderLocation(trx, incident.incident_id, responderId, { ...position, etaMinutes: etaMinutesNow }, at, recordedBefore))) return;
    const represented = (await representIncident(incident)(trx, incident.incident_id)) as Record<string, unknown>;
    await appendEvent(trx, deps, {
      organizationId: incident.organization_id,
      environment: incident.environment,
      type: 'incident.responder_location',
      resourceId: incident.incident_id,
      data: { ...represented, responder_location: { latitude: position.latitude, longitude: position.longitude, eta_minutes: etaMinutesNow, reported_at: at } },
    });
  });
}

const HOLDING = new Set(['assigned', 'responding', 'on_scene']);

/** What became of one of this responder's offers (another responder's offer, or none: 404): the phone's words when it leaves the screen. */
export async function offerOutcome(db: Executor, responder: Pick<ResponderRow, 'responder_id'>, offerId: string): Promise<OfferOutcome> {
  const row = await offerOf(db, responder.responder_id, offerId);
  if (!row) throw notFound('Offer');
  return {
    offer_id: row.offer_id,
    incident_id: row.incident_id,
    status: row.status,
    incident_status: row.incident_status,
    yours: row.holder_id === responder.responder_id && HOLDING.has(row.incident_status),
    stood_down: row.stood_down_by && row.stood_down_at ? { by: row.stood_down_by, reason: row.stood_down_reason ?? '', at: row.stood_down_at } : null,
  };
}
