import type { DispatchOfferRow, Executor, IncidentRow, ResponderRow, VerifiedIncidentRow } from '../db/schema.ts';
import { paramRows, preparedQuery, rowParams } from '../db/prepared.ts';
import { boundingBox, type Point } from './nearest.ts';
import { ringOfferBells } from './offer-ring.ts';

/**
 * Live incidents of the environment inside the box around `center` that wait for a responder
 * (dispatching once opened, escalated, unresponsive), oldest first: for a responder who has just
 * become available (`incidents_live_by_status`).
 */
export async function waitingIncidentsNear(db: Executor, environment: string, center: Point, radiusKm: number, limit = 20): Promise<IncidentRow[]> {
  const box = boundingBox(center, radiusKm);
  return db
    .selectFrom('incidents')
    .selectAll()
    .where('environment', '=', environment)
    .where('status', 'in', ['dispatching', 'escalated', 'unresponsive'])
    .where('is_drill', '=', 0)
    .where('dispatch_round', '>', 0)
    .where('latitude', '>=', box.minLat)
    .where('latitude', '<=', box.maxLat)
    .where('longitude', '>=', box.minLng)
    .where('longitude', '<=', box.maxLng)
    .orderBy('created_at')
    .limit(limit)
    .execute();
}

/** Statuses in which an incident keeps its responder busy. */
const BUSY = ['assigned', 'responding', 'on_scene'];

/** Active, available responders of the environment inside the box around `center` (the SQL prefilter). */
export async function availableRespondersNear(db: Executor, environment: string, center: Point, radiusKm: number): Promise<ResponderRow[]> {
  return (await respondersInBox(db, respondersSearchOf(environment, center, radiusKm))).rows;
}

/** A dispatch round's search: the environment and the box around the incident (nearest.ts, `boundingBox`). */
export interface RespondersSearch {
  environment: string;
  minLat: number;
  maxLat: number;
  minLng: number;
  maxLng: number;
}

export const respondersSearchOf = (environment: string, center: Point, radiusKm: number): RespondersSearch => ({ environment, ...boundingBox(center, radiusKm) });

/**
 * The search's query: also a part of an SOS's opening statement on PostgreSQL
 * (incidents/store.ts), whose first round reads its candidates in the statement that creates it.
 */
export const respondersInBoxQuery = (db: Executor, p: RespondersSearch) =>
  db
    .selectFrom('responders')
    .selectAll()
    .where('environment', '=', p.environment)
    .where('status', '=', 'active')
    // Only verified responders are offered incidents: not an applicant, not one suspended (issue #47).
    .where('standing', '=', 'verified')
    .where('available', '=', 1)
    .where('latitude', '>=', p.minLat)
    .where('latitude', '<=', p.maxLat)
    .where('longitude', '>=', p.minLng)
    .where('longitude', '<=', p.maxLng)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('incidents')
            .select('incidents.incident_id')
            .whereRef('incidents.responder_id', '=', 'responders.responder_id')
            .where('incidents.status', 'in', BUSY),
        ),
      ),
    );

/** Every dispatch round's search (every SOS on SQLite): built and compiled once (server/db/prepared.ts). */
const respondersInBox = preparedQuery((db, p: RespondersSearch) => respondersInBoxQuery(db, p));

export async function hasActiveAssignment(db: Executor, responderId: string): Promise<boolean> {
  const row = await db.selectFrom('incidents').select('incident_id').where('responder_id', '=', responderId).where('status', 'in', BUSY).executeTakeFirst();
  return row !== undefined;
}

/** A responder who took an incident is withdrawn from every other open offer. */
export async function withdrawOtherOffers(db: Executor, responderId: string, keepOfferId: string, at: string): Promise<void> {
  await db
    .updateTable('dispatch_offers')
    .set({ status: 'withdrawn', answered_at: at })
    .where('responder_id', '=', responderId)
    .where('status', '=', 'pending')
    .where('offer_id', '!=', keepOfferId)
    .execute();
}

/** Every offer of an incident so far (one row per responder: a reopened offer keeps its row). */
export function offersOfIncident(db: Executor, incidentId: string): Promise<DispatchOfferRow[]> {
  return db.selectFrom('dispatch_offers').selectAll().where('incident_id', '=', incidentId).orderBy('offered_at').execute();
}

/**
 * Asks a responder again who was offered the incident before (declined, lost or withdrawn): the
 * row is reopened under a new offer id, so a phone never answers the old one by mistake.
 */
export async function reopenOffer(db: Executor, offer: DispatchOfferRow): Promise<void> {
  await db
    .updateTable('dispatch_offers')
    .set({
      offer_id: offer.offer_id,
      round: offer.round,
      status: 'pending',
      distance_km: offer.distance_km,
      offered_at: offer.offered_at,
      answered_at: null,
      offered_by: offer.offered_by ?? null,
      decline_reason: null,
      stood_down_by: null,
      stood_down_reason: null,
      stood_down_at: null,
    })
    .where('incident_id', '=', offer.incident_id)
    .where('responder_id', '=', offer.responder_id)
    .where('status', '!=', 'pending')
    .execute();
  ringOfferBells([offer.responder_id]);
}

/** A manual offer, to a responder never offered the incident before. */
export async function insertOffer(db: Executor, offer: DispatchOfferRow): Promise<void> {
  await db.insertInto('dispatch_offers').values(offer).execute();
  ringOfferBells([offer.responder_id]);
}

export async function declineWithReason(db: Executor, offerId: string, reason: string | null, at: string): Promise<boolean> {
  const result = await db
    .updateTable('dispatch_offers')
    .set({ status: 'declined', answered_at: at, decline_reason: reason })
    .where('offer_id', '=', offerId)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** A suspended or retired responder's open offers are withdrawn. */
export async function withdrawOffersOf(db: Executor, responderId: string, at: string): Promise<void> {
  await db.updateTable('dispatch_offers').set({ status: 'withdrawn', answered_at: at }).where('responder_id', '=', responderId).where('status', '=', 'pending').execute();
}

/**
 * New offers under fresh ids, to responders not offered this incident before: their
 * transaction need not wait for them (server/db/deferred-write.ts), so on PostgreSQL an SOS's
 * first offers go out with its COMMIT.
 */
export async function insertOffers(db: Executor, offers: DispatchOfferRow[]): Promise<void> {
  if (offers.length) await offersInsert(db, rowParams(offers));
  ringOfferBells(offers.map((offer) => offer.responder_id));
}

/** Every round's offers: compiled once per offer count (server/db/prepared.ts). */
const offersInsert = preparedQuery((db, p: Record<string, unknown>) => db.insertInto('dispatch_offers').values(paramRows(p) as unknown as DispatchOfferRow[]), { deferred: true });

export async function findOffer(db: Executor, offerId: string, responderId: string): Promise<DispatchOfferRow | undefined> {
  return db.selectFrom('dispatch_offers').selectAll().where('offer_id', '=', offerId).where('responder_id', '=', responderId).executeTakeFirst();
}

export async function pendingOffersFor(db: Executor, responderId: string) {
  return db
    .selectFrom('dispatch_offers')
    .innerJoin('incidents', 'incidents.incident_id', 'dispatch_offers.incident_id')
    .selectAll('incidents')
    .select(['dispatch_offers.offer_id', 'dispatch_offers.distance_km', 'dispatch_offers.offered_at', 'dispatch_offers.round'])
    .where('dispatch_offers.responder_id', '=', responderId)
    .where('dispatch_offers.status', '=', 'pending')
    .where('incidents.status', 'in', ['dispatching', 'escalated', 'unresponsive'])
    .orderBy('dispatch_offers.offered_at')
    .execute();
}

/** The pending offers (open to the responder or not) of these responders: ids only (the offer bell's check). */
export function pendingOfferIdsOf(db: Executor, responderIds: readonly string[]): Promise<Array<{ responder_id: string; offer_id: string }>> {
  if (!responderIds.length) return Promise.resolve([]);
  return db.selectFrom('dispatch_offers').select(['responder_id', 'offer_id']).where('responder_id', 'in', responderIds).where('status', '=', 'pending').execute();
}

/** Closes every still-open offer of an incident (it was taken, or cancelled). */
export async function closeOpenOffers(db: Executor, incidentId: string, status: 'lost' | 'withdrawn', at: string): Promise<void> {
  await db
    .updateTable('dispatch_offers')
    .set({ status, answered_at: at })
    .where('incident_id', '=', incidentId)
    .where('status', '=', 'pending')
    .execute();
}

export interface StandDown {
  /** "Tsaro control (Kemi)". */
  by: string;
  reason: string;
  at: string;
}

/** Withdraws the offer of the incident open to one responder (a controller stood them down, saying who and why); false when none was open. */
export async function withdrawOfferTo(db: Executor, incidentId: string, responderId: string, standDown: StandDown): Promise<boolean> {
  const at = standDown.at;
  const result = await db
    .updateTable('dispatch_offers')
    .set({ status: 'withdrawn', answered_at: at, stood_down_by: standDown.by, stood_down_reason: standDown.reason, stood_down_at: at })
    .where('incident_id', '=', incidentId)
    .where('responder_id', '=', responderId)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The responder who held the incident was stood down: their (accepted) offer's row says who, why and when, for their phone. */
export async function markStoodDown(db: Executor, incidentId: string, responderId: string, standDown: StandDown): Promise<void> {
  await db
    .updateTable('dispatch_offers')
    .set({ stood_down_by: standDown.by, stood_down_reason: standDown.reason, stood_down_at: standDown.at })
    .where('incident_id', '=', incidentId)
    .where('responder_id', '=', responderId)
    .execute();
}

/** One responder's offer, by id (what became of it: the phone asks). */
export function offerOf(db: Executor, responderId: string, offerId: string) {
  return db
    .selectFrom('dispatch_offers')
    .innerJoin('incidents', 'incidents.incident_id', 'dispatch_offers.incident_id')
    .select(['dispatch_offers.offer_id', 'dispatch_offers.incident_id', 'dispatch_offers.status', 'dispatch_offers.answered_at', 'dispatch_offers.stood_down_by', 'dispatch_offers.stood_down_reason', 'dispatch_offers.stood_down_at'])
    .select(['incidents.status as incident_status', 'incidents.responder_id as holder_id'])
    .where('dispatch_offers.offer_id', '=', offerId)
    .where('dispatch_offers.responder_id', '=', responderId)
    .executeTakeFirst();
}

export async function answerOffer(db: Executor, offerId: string, status: 'accepted' | 'declined', at: string): Promise<boolean> {
  const result = await db
    .updateTable('dispatch_offers')
    .set({ status, answered_at: at })
    .where('offer_id', '=', offerId)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Free again (or busy): a responder out of service stays unavailable (server/duty/); on duty again from now. */
export async function setResponderAvailable(db: Executor, responderId: string, available: boolean, at: string): Promise<void> {
  await db
    .updateTable('responders')
    .set((eb) => ({ available: available ? eb.case().when('out_of_service_reason', 'is', null).then(1).else(0).end() : 0, duty_since: at, updated_at: at }))
    .where('responder_id', '=', responderId)
    .execute();
}

/**
 * Claims an incident's opening (round 0 to 1, still dispatching) and reads it, in one statement:
 * of two hosts opening together, one gets the row and the other undefined. A simulated
 * incident (sandbox, drill) gets its first step's time; a live one keeps none.
 */
export async function claimDispatchOpening(db: Executor, incidentId: string, simulatedFirstStepAt: string): Promise<IncidentRow | undefined> {
  return (await openingClaim(db, { incidentId, simulatedFirstStepAt })).rows[0];
}

/** Every SOS's opening: built and compiled once (server/db/prepared.ts). */
const openingClaim = preparedQuery((db, p: { incidentId: string; simulatedFirstStepAt: string }) =>
  db
    .updateTable('incidents')
    .set((eb) => ({
      dispatch_round: 1,
      next_step_at: eb
        .case()
        .when(eb.or([eb('environment', '=', 'sandbox'), eb('is_drill', '=', 1)]))
        .then(p.simulatedFirstStepAt)
        .else(eb.ref('next_step_at'))
        .end(),
    }))
    .where('incident_id', '=', p.incidentId)
    .where('dispatch_round', '=', 0)
    .where('status', '=', 'dispatching')
    .returningAll(),
);

export async function setDispatchRound(db: Executor, incidentId: string, round: number): Promise<void> {
  await db.updateTable('incidents').set({ dispatch_round: round }).where('incident_id', '=', incidentId).execute();
}

/** When the engine next looks at the incident by itself (a simulated step, a re-offer); null: never. */
export async function setNextStepAt(db: Executor, incidentId: string, at: string | null): Promise<void> {
  await db.updateTable('incidents').set({ next_step_at: at }).where('incident_id', '=', incidentId).execute();
}

export async function insertVerifiedIncident(db: Executor, row: VerifiedIncidentRow): Promise<void> {
  await db.insertInto('verified_incidents').values(row).execute();
}

export async function findIncidentById(db: Executor, incidentId: string): Promise<IncidentRow | undefined> {
  return db.selectFrom('incidents').selectAll().where('incident_id', '=', incidentId).executeTakeFirst();
}

const ACTIVE = ['created', 'dispatching', 'assigned', 'responding', 'on_scene', 'escalated', 'unresponsive'];

/** Incidents the engine must act on now: never offered, past a deadline, or with a step due. */
export async function incidentsNeedingDispatch(db: Executor, now: string, openedBefore: string, limit: number): Promise<IncidentRow[]> {
  return db
    .selectFrom('incidents')
    .selectAll()
    .where((eb) =>
      eb.or([
        eb.and([eb('status', '=', 'dispatching'), eb('dispatch_round', '=', 0), eb('created_at', '<=', openedBefore)]),
        eb.and([eb('status', '=', 'dispatching'), eb('dispatch_deadline', '<=', now)]),
        eb.and([eb('status', '=', 'escalated'), eb('escalation_deadline', '<=', now)]),
        eb.and([eb('status', 'in', ACTIVE), eb('next_step_at', '<=', now)]),
      ]),
    )
    .orderBy('created_at')
    .limit(limit)
    .execute();
}

export async function assignmentsOf(db: Executor, responderId: string, since: string): Promise<IncidentRow[]> {
  return db
    .selectFrom('incidents')
    .selectAll()
    .where('responder_id', '=', responderId)
    .where((eb) => eb.or([eb('status', 'in', ['assigned', 'responding', 'on_scene']), eb('updated_at', '>=', since)]))
    .orderBy('updated_at', 'desc')
    .execute();
}

/** Dispatch deadlines for metrics: incidents waiting for a responder, and those already past their deadline. */
export async function dispatchDeadlineCounts(db: Executor, now: string): Promise<{ waiting: number; overdue: number }> {
  const row = await db
    .selectFrom('incidents')
    .select((eb) => [eb.fn.countAll<number>().as('waiting'), eb.fn.count<number>(eb.case().when('dispatch_deadline', '<=', now).then(1).end()).as('overdue')])
    .where('status', '=', 'dispatching')
    .executeTakeFirstOrThrow();
  return { waiting: row.waiting, overdue: row.overdue };
}

/** The incident a responder has in hand (assigned, on the way or on scene), if any. */
export async function activeAssignmentOf(db: Executor, responderId: string): Promise<IncidentRow | undefined> {
  return db.selectFrom('incidents').selectAll().where('responder_id', '=', responderId).where('status', 'in', BUSY).executeTakeFirst();
}

/**
 * Records the assigned responder's reported position and ETA on the incident, only if the last
 * one recorded is at least as old as `recordedBefore` (or none was): the throttle of
 * `incident.responder_location`, one compare-and-set across hosts. True when it recorded.
 */
export async function recordResponderLocation(
  trx: Executor,
  incidentId: string,
  responderId: string,
  report: { latitude: number; longitude: number; etaMinutes: number },
  at: string,
  recordedBefore: string,
): Promise<boolean> {
  const result = await trx
    .updateTable('incidents')
    .set({ responder_latitude: report.latitude, responder_longitude: report.longitude, eta_minutes: report.etaMinutes, responder_location_at: at })
    .where('incident_id', '=', incidentId)
    .where('responder_id', '=', responderId)
    .where('status', 'in', BUSY)
    .where((eb) => eb.or([eb('responder_location_at', 'is', null), eb('responder_location_at', '<=', recordedBefore)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
