import { z } from 'zod';
import {
  AvailabilityRequest,
  DeclineRequest,
  Offer,
  OfferOutcome,
  OffersQuery,
  ProgressRequest,
  ResolveRequest,
  ResponderEnvelope,
  ResponderIncident,
} from '../../shared/schemas/responders.ts';
import { ErrorBody } from '../../shared/schemas/common.ts';
import type { EventDeps } from '../events/service.ts';
import { authenticateResponder, responderAuthentication, responderOf } from '../auth/responder-token.ts';
import type { Db, Executor, IncidentRow } from '../db/schema.ts';
import { queueAllClear } from '../messages/alarms.ts';
import type { TextingDeps } from '../messages/service.ts';
import { json } from '../http/responses.ts';
import { acceptOffer, declineOffer, offerOutcome, reportProgress, resolveAssigned } from '../dispatch/responder-actions.ts';
import { routeFor, routerOf } from '../http/define-route.ts';
import type { Config } from '../config.ts';
import { responderDutyRouteList } from './duty-routes.ts';
import { rowToResponder } from './responder.ts';
import type { OfferBell } from './offer-bell.ts';
import type { Dispatcher } from '../incidents/dispatcher.ts';
import { openOffers, pendingOfferIds, recentAssignments, reportAvailability } from './service.ts';

/** A long poll waits on the bell at most this long at a time, then looks at the (injected) clock. */
const WAIT_SLICE_MS = 1000;

export interface ResponderRouteDeps extends EventDeps {
  db: Db;
  /** The duty settings (check-in period and the rest, server/duty/). */
  config: Config;
  /** A resolution sends the call list's all-clear (server/messages/alarms.ts). */
  texting: TextingDeps;
  /** The host's one look-out for waiting phones (server/responders/offer-bell.ts). */
  offerBell: OfferBell;
  /** A heartbeat that makes a responder available has the incidents waiting near them offered (server/dispatch/engine.ts). */
  dispatcher: Pick<Dispatcher, 'responderAvailable'>;
}

const route = routeFor<ResponderRouteDeps>();
const error = (description: string) => ({ description, ...json(ErrorBody) });
const authErrors = { 401: error('Missing, unknown or deactivated responder token') };
const incidentAnswer = { 200: { description: 'The incident as the responder now sees it', ...json(z.object({ incident: ResponderIncident })) } };
const OfferParams = z.object({ offerId: z.string() });
const IncidentParams = z.object({ incidentId: z.string() });

/**
 * The responder API at /v1/responder, apart from the partner API: a responder's phone app
 * authenticates with its own token (`Authorization: Bearer rtk_...`), reports availability and
 * location, and (with the dispatch engine) sees and answers offers.
 */
export const responderRouteList = [
  route({
    method: 'get',
    path: '/me',
    access: 'responder',
    operationId: 'me',
    summary: 'This responder',
    responses: { 200: { description: 'The responder', ...json(ResponderEnvelope) }, ...authErrors },
    handler(_input, req, res) {
      res.json({ responder: rowToResponder(responderOf(req)) });
    },
  }),
  route({
    method: 'put',
    path: '/availability',
    access: 'responder',
    body: AvailabilityRequest,
    operationId: 'reportAvailability',
    summary: 'Heartbeat: available or not, and where',
    description: 'Coming available (on duty, or free again after an incident) has the live incidents near you that wait with nobody asked offered to you at once: the long poll on `GET /offers` hears them.',
    responses: { 200: { description: 'Recorded', ...json(ResponderEnvelope) }, 400: error('Invalid body'), ...authErrors },
    async handler({ body }, req, res, deps) {
      const before = responderOf(req);
      const responder = await reportAvailability(deps.db, deps, before.responder_id, body);
      res.json({ responder });
      // Just come available: the incidents near them still waiting for anyone are offered now.
      if (body.available && !Number(before.available)) deps.dispatcher.responderAvailable?.({ responderId: before.responder_id, environment: before.environment, latitude: body.latitude, longitude: body.longitude });
    },
  }),
  route({
    method: 'get',
    path: '/offers',
    access: 'responder',
    query: OffersQuery,
    operationId: 'offers',
    summary: 'Incidents offered to this responder, still open',
    description: 'With `wait`, a long poll: answers as soon as an offer is open, or with an empty list after `wait` seconds. `answer_by` says when the incident escalates if nobody accepts.',
    responses: { 200: { description: 'Open offers', ...json(z.object({ offers: z.array(Offer) })) }, ...authErrors },
    /**
     * With `?wait=N` a long poll that answers as soon as an offer arrives. It waits on the host's
     * offer bell (server/responders/offer-bell.ts), not on reads of its own: woken by the offer's
     * NOTIFY (PostgreSQL) or the dispatch write (SQLite), or by the bell's one check for every
     * waiting phone. It ends after N seconds of the injected clock, and after N seconds whatever
     * that clock says, so a test's stopped clock cannot hold a phone's request forever.
     */
    async handler({ query }, req, res, deps) {
      const responder = responderOf(req);
      const responderId = responder.responder_id;
      const until = deps.clock.now().getTime() + query.wait * 1000;
      const deadline = Date.now() + query.wait * 1000;
      let offers = await openOffers(deps.db, responderId);
      let closed = false;
      let cancel = () => undefined as void;
      req.on('close', () => {
        closed = true;
        cancel();
      });
      const seen = new Set<string>();
      while (!offers.length && !closed && deps.clock.now().getTime() < until && Date.now() < deadline) {
        // Slices of a second at most, so a test clock moved past the end ends the wait; a slice that
        // times out reads nothing.
        const waiting = deps.offerBell.wait({ responderId, tokenHash: responder.token_hash, ms: Math.min(WAIT_SLICE_MS, deadline - Date.now()), seen });
        cancel = waiting.cancel;
        const why = await waiting.done;
        if (closed || why === 'timeout') continue;
        // Deactivated or signed out while waiting: the 401 signs the phone out now, not at the end of the wait.
        if (why === 'gone') await authenticateResponder(deps.db, req);
        offers = await openOffers(deps.db, responderId);
        // Woken by an offer not open to it (its incident moved on): not woken by that one again.
        if (!offers.length) for (const offerId of await pendingOfferIds(deps.db, responderId)) seen.add(offerId);
      }
      if (!closed) res.json({ offers });
    },
  }),
  route({
    method: 'get',
    path: '/offers/:offerId',
    access: 'responder',
    params: OfferParams,
    operationId: 'offerOutcome',
    summary: 'What became of an offer',
    description:
      "When an offer or an incident leaves the app's lists, this says why: still open, taken by this responder or by another, declined, the incident cancelled or over, or Tsaro control stood this responder down (`stood_down`: who, as \"Tsaro control (Kemi)\", why and when). An offer made again later (a decliner asked again) has a new id: the old one is a 404.",
    responses: { 200: { description: 'The offer as it stands', ...json(z.object({ offer: OfferOutcome })) }, 404: error('No such offer for this responder'), ...authErrors },
    async handler({ params }, req, res, deps) {
      res.json({ offer: await offerOutcome(deps.db, responderOf(req), params.offerId) });
    },
  }),
  route({
    method: 'post',
    path: '/offers/:offerId/accept',
    access: 'responder',
    params: OfferParams,
    operationId: 'acceptOffer',
    summary: 'Take the incident',
    description:
      'The first to accept is assigned; the others get 409 (`Offer is taken by another responder`). An escalated or unresponsive incident can still be taken. A retry by the responder already assigned answers the incident again.',
    responses: { ...incidentAnswer, 404: error('No such offer for this responder'), 409: error('Taken by another responder, cancelled, or already answered'), ...authErrors },
    async handler({ params }, req, res, deps) {
      res.json({ incident: await acceptOffer(deps.db, deps, responderOf(req), params.offerId) });
    },
  }),
  route({
    method: 'post',
    path: '/offers/:offerId/decline',
    access: 'responder',
    params: OfferParams,
    body: DeclineRequest,
    operationId: 'declineOffer',
    summary: 'Decline an offer, saying why',
    description: 'The reason is shown in the incident\'s timeline. A decliner may be asked again in a later round (after escalation), when still among the nearest.',
    responses: {
      200: { description: 'Declined', ...json(z.object({ offer: z.object({ offer_id: z.string(), status: z.literal('declined') }) })) },
      404: error('No such offer'),
      409: error('Already answered'),
      ...authErrors,
    },
    async handler({ params, body }, req, res, deps) {
      res.json({ offer: await declineOffer(deps.db, deps, responderOf(req), params.offerId, body.reason) });
    },
  }),
  route({
    method: 'get',
    path: '/assignments',
    access: 'responder',
    operationId: 'assignments',
    summary: "This responder's open incidents, and any closed in the last day",
    description: 'A partner cancelling an assigned incident shows here as status `cancelled`.',
    responses: { 200: { description: 'Incidents', ...json(z.object({ incidents: z.array(ResponderIncident) })) }, ...authErrors },
    async handler(_input, req, res, deps) {
      res.json({ incidents: await recentAssignments(deps.db, deps.clock, responderOf(req).responder_id) });
    },
  }),
  route({
    method: 'post',
    path: '/incidents/:incidentId/status',
    access: 'responder',
    params: IncidentParams,
    body: ProgressRequest,
    operationId: 'reportProgress',
    summary: 'On the way (`responding`, with an ETA) or arrived (`on_scene`)',
    description: 'Reporting the status the incident already has (a retry) answers it again.',
    responses: { ...incidentAnswer, 400: error('Invalid body'), 404: error('Not assigned to this responder'), 409: error('Not allowed from the current status'), ...authErrors },
    async handler({ params, body }, req, res, deps) {
      res.json({ incident: await reportProgress(deps.db, deps, responderOf(req), params.incidentId, body.status, body.eta_minutes) });
    },
  }),
  route({
    method: 'post',
    path: '/incidents/:incidentId/resolve',
    access: 'responder',
    params: IncidentParams,
    body: ResolveRequest,
    operationId: 'resolve',
    summary: 'Close the incident with an outcome',
    description:
      "A retry with the same outcome after the incident is resolved answers it again; another outcome is a 409. A live incident at a site whose alarm had been texted sends the site's call list the all-clear.",
    responses: { ...incidentAnswer, 400: error('Invalid body'), 404: error('Not assigned to this responder'), 409: error('Not on scene yet'), ...authErrors },
    async handler({ params, body }, req, res, deps) {
      const allClear = (trx: Executor, row: IncidentRow) => queueAllClear(trx, deps.texting, row, 'resolved');
      res.json({ incident: await resolveAssigned(deps.db, { ...deps, allClear }, responderOf(req), params.incidentId, body.outcome, body.notes) });
    },
  }),
  // Duty: status, out of service, check-ins on scene, panic (server/duty/).
  ...responderDutyRouteList,
];

export const responderRoutes = (deps: ResponderRouteDeps) =>
  routerOf(responderRouteList, deps, { responder: responderAuthentication(deps.db) });
