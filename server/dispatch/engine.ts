import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import type { EventDeps } from '../events/service.ts';
import { inTransaction, type DispatchOfferRow, type Executor, type IncidentRow, type ResponderRow } from '../db/schema.ts';
import type { Dispatcher } from '../incidents/dispatcher.ts';
import { transitionIncident, withLatestIncident } from '../incidents/lifecycle.ts';
import { getIncident } from '../incidents/service.ts';
import { newId } from '../ids.ts';
import { DEFAULT_FIX_MAX_AGE_S, chooseNearestResponders, distanceKm, etaMinutes, freshFix } from './nearest.ts';
import { SIMULATED_RESPONDERS, SIMULATED_STEP_SECONDS } from './simulated-network.ts';
import {
  availableRespondersNear,
  claimDispatchOpening,
  closeOpenOffers,
  dispatchDeadlineCounts,
  findIncidentById,
  incidentsNeedingDispatch,
  insertOffers,
  offersOfIncident,
  reopenOffer,
  respondersSearchOf,
  setDispatchRound,
  setNextStepAt,
  setResponderAvailable,
  waitingIncidentsNear,
} from './store.ts';

export interface DispatchSettings {
  /** First offers go to responders within this radius; escalation widens it threefold. */
  radiusKm: number;
  /** How many responders the first round is offered to; escalation offers three times as many. */
  offerCount: number;
  /** Speed of the simulated network (SANDBOX_SPEED). */
  sandboxSpeed: number;
  dispatchWindowS: number;
  /** DISPATCH_FIX_MAX_AGE_S: a position older than this is never used to rank (default DEFAULT_FIX_MAX_AGE_S). */
  fixMaxAgeS?: number;
}

export interface DispatchDeps extends EventDeps {
  db: Executor;
  settings: DispatchSettings;
  logger: Logger;
  /**
   * The alarm when nobody comes (server/messages/): `queue` in the transaction that escalates or
   * marks an incident unresponsive (the site's call list is texted exactly when the alarm is
   * raised), `committed` once it has committed, to send them at once.
   */
  alarms?: {
    queue(trx: Executor, incident: IncidentRow, reason: 'escalated' | 'unresponsive'): Promise<number>;
    committed(): void;
  };
}

/** Sandbox incidents and drills are played out by the simulated network, never offered to a real responder. */
export const isSimulated = (row: Pick<IncidentRow, 'environment' | 'is_drill'>) => row.environment === 'sandbox' || Boolean(row.is_drill);

export const tenantOfIncident = (row: IncidentRow) => ({ organizationId: row.organization_id, environment: row.environment });
export const representIncident = (row: IncidentRow) => (trx: Executor, id: string) => getIncident(trx, tenantOfIncident(row), id);

/** `withLatestIncident` for the engine, which stands above tenants: the incident by id alone. */
export function withIncident<T>(db: Executor, incidentId: string, step: (trx: Executor, row: IncidentRow) => Promise<T>): Promise<T> {
  return withLatestIncident(db, (trx) => findIncidentById(trx, incidentId), step);
}

/** Dispatch deadlines for metrics: incidents waiting for a responder, and those already past their deadline. */
export { dispatchDeadlineCounts };

/** How often an escalated or unresponsive live incident is offered to responders who came free. */
const REOFFER_EVERY_S = 30;

const secondsLater = (clock: Clock, seconds: number) => new Date(clock.now().getTime() + seconds * 1000).toISOString();

/** When the simulated network (sandbox, drills) first answers a newly opened incident. */
const firstSimulatedStepAt = (deps: DispatchDeps) => secondsLater(deps.clock, SIMULATED_STEP_SECONDS.assigned / deps.settings.sandboxSpeed);

/** Escalation's round widens the first: three times the radius, three times the offers. */
const roundWidening = (round: 1 | 2) => (round === 1 ? 1 : 3);

/** How far a round reaches. */
const roundRadiusKm = (deps: DispatchDeps, round: 1 | 2) => deps.settings.radiusKm * roundWidening(round);

/**
 * Offers the incident to the nearest available responders of its environment not offered it yet.
 * `opening`: the first round, right after `claimDispatchOpening` set round 1 in this transaction,
 * so no offer exists yet and the round is already recorded (two statements fewer on every
 * POST /incidents).
 */
async function offerRound(trx: Executor, deps: DispatchDeps, row: IncidentRow, round: 1 | 2, opening = false, found?: ResponderRow[]): Promise<number> {
  const widen = roundWidening(round);
  const radiusKm = roundRadiusKm(deps, round);
  const incidentPoint = { latitude: Number(row.latitude), longitude: Number(row.longitude) };
  const previous = new Map(opening ? [] : (await offersOfIncident(trx, row.incident_id)).map((offer) => [offer.responder_id, offer]));
  const nowMs = deps.clock.now().getTime();
  const fixMaxAgeS = deps.settings.fixMaxAgeS ?? DEFAULT_FIX_MAX_AGE_S;
  const candidates = (found ?? (await availableRespondersNear(trx, row.environment, incidentPoint, radiusKm)))
    // A stale fix is never used to rank: that responder is left out until the phone reports again.
    .filter((responder) => freshFix(responder.location_at, nowMs, fixMaxAgeS))
    .filter((responder) => mayBeAsked(previous.get(responder.responder_id), round))
    .map((responder) => ({ responderId: responder.responder_id, latitude: Number(responder.latitude), longitude: Number(responder.longitude) }));
  const chosen = chooseNearestResponders(candidates, incidentPoint, radiusKm, deps.settings.offerCount * widen);
  const at = deps.clock.now().toISOString();
  const offers: DispatchOfferRow[] = chosen.map((choice) => ({
    offer_id: newId('ofr', deps.clock.now()),
    incident_id: row.incident_id,
    responder_id: choice.responderId,
    round,
    status: 'pending',
    distance_km: Math.round(choice.distanceKm * 100) / 100,
    offered_at: at,
    answered_at: null,
    first_offered_at: at,
  }));
  // A decliner of an earlier round, asked again, gets their offer's row reopened.
  await insertOffers(trx, offers.filter((offer) => !previous.has(offer.responder_id)));
  for (const offer of offers) if (previous.has(offer.responder_id)) await reopenOffer(trx, offer);
  if (!opening) await setDispatchRound(trx, row.incident_id, round);
  return offers.length;
}

/**
 * Whether a responder offered the incident before may be asked in this round: not while an offer
 * is open to them or they hold it, nor again in the round they declined; a decliner of an earlier
 * round may be, when still among the nearest (issue #47: the nearest help may have come free).
 */
export function mayBeAsked(previous: Pick<DispatchOfferRow, 'status' | 'round'> | undefined, round: number): boolean {
  if (!previous) return true;
  if (previous.status === 'pending' || previous.status === 'accepted') return false;
  return !(previous.status === 'declined' && Number(previous.round) >= round);
}

/** The first round's search: offerRound's for round 1, so candidates read with the insert are the ones it would read. */
const firstRoundSearch = (deps: DispatchDeps, row: IncidentRow) =>
  respondersSearchOf(row.environment, { latitude: Number(row.latitude), longitude: Number(row.longitude) }, deps.settings.radiusKm);

/** First offers (live) or the simulated network's first step (sandbox, drills); once per incident. */
export async function openDispatch(deps: DispatchDeps, incidentId: string): Promise<void> {
  await inTransaction(deps.db, async (trx) => {
    // Claim the opening first: of two hosts opening together, one offers and the other stops.
    const row = await claimDispatchOpening(trx, incidentId, firstSimulatedStepAt(deps));
    if (!row || isSimulated(row)) return;
    const offered = await offerRound(trx, deps, row, 1, true);
    deps.logger.info({ incidentId, offered }, 'incident offered to responders');
  });
}

async function escalate(deps: DispatchDeps, incidentId: string): Promise<void> {
  let raised = false;
  await withIncident(deps.db, incidentId, async (trx, row) => {
    if (row.status !== 'dispatching' || row.dispatch_deadline > deps.clock.now().toISOString()) return;
    await transitionIncident(trx, deps, row, 'escalated', {
      message: `No responder accepted within ${deps.settings.dispatchWindowS} s; offering to more responders further away`,
      changes: isSimulated(row) ? {} : { next_step_at: secondsLater(deps.clock, REOFFER_EVERY_S) },
      represent: representIncident(row),
    });
    if (!isSimulated(row)) await offerRound(trx, deps, { ...row, status: 'escalated' }, 2);
    if (deps.alarms) raised = (await deps.alarms.queue(trx, row, 'escalated')) > 0;
  });
  if (raised) deps.alarms?.committed();
}

async function markUnresponsive(deps: DispatchDeps, incidentId: string): Promise<void> {
  let raised = false;
  await withIncident(deps.db, incidentId, async (trx, row) => {
    if (row.status !== 'escalated' || row.escalation_deadline > deps.clock.now().toISOString()) return;
    await transitionIncident(trx, deps, row, 'unresponsive', {
      message: 'Still no responder after the escalation window; the offers stay open to anyone who can still help',
      represent: representIncident(row),
    });
    if (deps.alarms) raised = (await deps.alarms.queue(trx, row, 'unresponsive')) > 0;
  });
  if (raised) deps.alarms?.committed();
}

/** Responders who came free since: an escalated or unresponsive live incident is offered again, wider. */
async function reoffer(deps: DispatchDeps, incidentId: string): Promise<void> {
  await withIncident(deps.db, incidentId, async (trx, row) => {
    if (isSimulated(row) || (row.status !== 'escalated' && row.status !== 'unresponsive')) return;
    if (!row.next_step_at || row.next_step_at > deps.clock.now().toISOString()) return;
    await offerRound(trx, deps, row, 2);
    await setNextStepAt(trx, incidentId, secondsLater(deps.clock, REOFFER_EVERY_S));
  });
}

/**
 * A responder who has just become available (on duty, or free again): each live incident near
 * them still waiting with no offer open and nobody holding it is offered now, as its own round
 * would offer it (dispatching: the first round's radius; escalated or unresponsive: the wider
 * one), so an SOS reported a moment before the nearest responder came on duty is not left until
 * it escalates. Answers how many offers were made.
 */
export async function offerWaitingIncidents(deps: DispatchDeps, at: { environment: string; latitude: number; longitude: number }): Promise<number> {
  const point = { latitude: at.latitude, longitude: at.longitude };
  let offered = 0;
  for (const waiting of await waitingIncidentsNear(deps.db, at.environment, point, roundRadiusKm(deps, 2))) {
    offered += await withIncident(deps.db, waiting.incident_id, async (trx, row) => {
      if (isSimulated(row) || Number(row.dispatch_round) === 0) return 0;
      if (row.status !== 'dispatching' && row.status !== 'escalated' && row.status !== 'unresponsive') return 0;
      const round = row.status === 'dispatching' ? 1 : 2;
      if (distanceKm(point, { latitude: Number(row.latitude), longitude: Number(row.longitude) }) > roundRadiusKm(deps, round)) return 0;
      // Others are still considering it, or someone holds it: not a waiting incident.
      if ((await offersOfIncident(trx, row.incident_id)).some((offer) => offer.status === 'pending' || offer.status === 'accepted')) return 0;
      return offerRound(trx, deps, row, round);
    });
  }
  if (offered) deps.logger.info({ offered }, 'waiting incidents offered to a responder who came available');
  return offered;
}

/** The simulated network's next move: accept, set off, arrive, close. */
async function simulatedStep(deps: DispatchDeps, incidentId: string): Promise<void> {
  const speed = deps.settings.sandboxSpeed;
  await withIncident(deps.db, incidentId, async (trx, row) => {
    const now = deps.clock.now().toISOString();
    if (!row.next_step_at || row.next_step_at > now || !isSimulated(row)) return;
    const represent = representIncident(row);
    switch (row.status) {
      case 'dispatching':
      case 'escalated':
      case 'unresponsive': {
        const point = { latitude: Number(row.latitude), longitude: Number(row.longitude) };
        const nearest = [...SIMULATED_RESPONDERS].sort((a, b) => distanceKm(point, a) - distanceKm(point, b))[0]!;
        const eta = Math.min(30, etaMinutes(distanceKm(point, nearest)));
        await transitionIncident(trx, deps, row, 'assigned', {
          message: `Accepted by ${nearest.name}, about ${eta} min away (simulated)`,
          changes: {
            responder_id: nearest.id,
            responder_name: nearest.name,
            responder_phone: nearest.phone,
            responder_latitude: nearest.latitude,
            responder_longitude: nearest.longitude,
            eta_minutes: eta,
            next_step_at: secondsLater(deps.clock, SIMULATED_STEP_SECONDS.responding / speed),
          },
          represent,
        });
        return;
      }
      case 'assigned':
        await transitionIncident(trx, deps, row, 'responding', {
          message: `${row.responder_name} is on the way (simulated)`,
          changes: { next_step_at: secondsLater(deps.clock, SIMULATED_STEP_SECONDS.on_scene / speed) },
          represent,
        });
        return;
      case 'responding':
        await transitionIncident(trx, deps, row, 'on_scene', {
          message: `${row.responder_name} is on scene (simulated)`,
          changes: { next_step_at: secondsLater(deps.clock, SIMULATED_STEP_SECONDS.resolved / speed), eta_minutes: 0 },
          represent,
        });
        return;
      case 'on_scene':
        await transitionIncident(trx, deps, row, 'resolved', {
          message: 'Closed by the simulated responder network: assisted',
          changes: { next_step_at: null, resolution_outcome: 'assisted', resolution_notes: 'Simulated responder network (sandbox or drill)' },
          represent,
        });
        return;
      default:
        await setNextStepAt(trx, incidentId, null);
    }
  });
}

/**
 * The dispatch sweep: opens incidents never offered (a host that died before offering), moves
 * simulated incidents along, escalates past the dispatch window, marks unresponsive past the
 * escalation window. Every move is a compare-and-set on the incident's version, so hosts
 * sweeping together make each move once, and a restart loses nothing: it is all in the rows.
 */
export async function advanceDispatch(deps: DispatchDeps, batch = 200): Promise<number> {
  const now = deps.clock.now();
  const rows = await incidentsNeedingDispatch(deps.db, now.toISOString(), new Date(now.getTime() - 2000).toISOString(), batch);
  let moved = 0;
  for (const row of rows) {
    try {
      const at = now.toISOString();
      // Each step re-reads the incident and re-checks its own condition, so they can run in turn:
      // an incident missed at opening whose window has also passed is opened, then escalated.
      if (row.status === 'dispatching' && Number(row.dispatch_round) === 0) await openDispatch(deps, row.incident_id);
      if (row.next_step_at && row.next_step_at <= at && isSimulated(row)) await simulatedStep(deps, row.incident_id);
      else if (row.next_step_at && row.next_step_at <= at && (row.status === 'escalated' || row.status === 'unresponsive')) {
        // Past the escalation window an escalated incident turns unresponsive first; either way it is offered again.
        if (row.status === 'escalated' && row.escalation_deadline <= at) await markUnresponsive(deps, row.incident_id);
        await reoffer(deps, row.incident_id);
      }
      else if (row.status === 'dispatching' && row.dispatch_deadline <= at) await escalate(deps, row.incident_id);
      else if (row.status === 'escalated' && row.escalation_deadline <= at) await markUnresponsive(deps, row.incident_id);
      moved++;
    } catch (err) {
      deps.logger.warn({ err, incidentId: row.incident_id }, 'dispatch step failed; the next sweep retries');
    }
  }
  return moved;
}

/**
 * The engine behind the incident API's Dispatcher seam. With `timers`, a simulated incident's
 * next step also gets a one-shot timer for when it is due, so a fast sandbox is not held to the
 * one-second sweep; every step is a compare-and-set, and the sweep remains the safety net
 * (a restart, another host).
 */
export function createDispatchEngine(deps: DispatchDeps, options: { timers?: boolean } = {}): Dispatcher {
  const pending = new Set<NodeJS.Timeout>();
  let stopped = false;

  const followSimulated = async (incidentId: string, earlyRetries = 3): Promise<void> => {
    const row = await findIncidentById(deps.db, incidentId);
    if (!options.timers || stopped || !row?.next_step_at || !isSimulated(row)) return;
    const delay = Math.max(0, Date.parse(row.next_step_at) - deps.clock.now().getTime());
    if (delay > 120_000) return; // a slow sandbox: the sweep is soon enough
    const timer = setTimeout(() => {
      pending.delete(timer);
      if (stopped) return;
      simulatedStep(deps, incidentId)
        .then(async () => {
          const after = await findIncidentById(deps.db, incidentId);
          if (after && after.status !== row.status) await followSimulated(incidentId);
          // A timer can fire a moment before the clock reaches the step: try again, a few times.
          else if (after?.next_step_at && earlyRetries > 0) await followSimulated(incidentId, earlyRetries - 1);
        })
        .catch((err: unknown) => deps.logger.warn({ err, incidentId }, 'simulated step failed; the sweep retries'));
    }, delay);
    timer.unref();
    pending.add(timer);
  };

  return {
    opening(row) {
      if (isSimulated(row)) {
        return { columns: { dispatch_round: 1, next_step_at: firstSimulatedStepAt(deps) } };
      }
      return {
        columns: { dispatch_round: 1, next_step_at: null },
        search: firstRoundSearch(deps, row),
        // The first offers, in the transaction that creates the incident: one commit for both.
        offer: async (trx, candidates) => {
          try {
            const offered = await offerRound(trx, deps, { ...row, dispatch_round: 1, next_step_at: null }, 1, true, candidates);
            deps.logger.info({ incidentId: row.incident_id, offered }, 'incident offered to responders');
          } catch (err) {
            // Never fail the SOS for its dispatch: hand the opening back to the sweep (round 0), in
            // this transaction. On PostgreSQL a failed statement has aborted the transaction, so
            // this fails too and the create fails whole, unacknowledged: the client's retry runs again.
            await setDispatchRound(trx, row.incident_id, 0).catch(() => {
              throw err;
            });
            deps.logger.warn({ err, incidentId: row.incident_id }, 'first offers failed; the sweep opens the incident again');
          }
        },
      };
    },
    incidentOpened(incident) {
      // The opening was done in the creating transaction (`opening`); only the simulated network
      // has steps of its own to follow. An opening handed back to the sweep is picked up there.
      if (incident.environment !== 'sandbox' && !incident.is_drill) return;
      followSimulated(incident.incident_id).catch((err: unknown) => deps.logger.warn({ err, incidentId: incident.incident_id }, 'simulated step failed; the sweep retries'));
    },
    responderAvailable(responder) {
      if (stopped) return;
      offerWaitingIncidents(deps, responder).catch((err: unknown) => deps.logger.warn({ err, responderId: responder.responderId }, 'offering waiting incidents to a responder who came available failed; the sweep offers them'));
    },
    stop() {
      stopped = true;
      for (const timer of pending) clearTimeout(timer);
      pending.clear();
    },
    async incidentCancelled(trx, incidentId) {
      const at = deps.clock.now().toISOString();
      await closeOpenOffers(trx, incidentId, 'withdrawn', at);
      const row = await findIncidentById(trx, incidentId);
      await setNextStepAt(trx, incidentId, null);
      if (row?.responder_id && !row.responder_id.startsWith('rsp_sim_')) await setResponderAvailable(trx, row.responder_id, true, at);
    },
  };
}
