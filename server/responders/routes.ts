import { Router, type Request } from 'express';
import { z } from 'zod';
import { AvailabilityRequest, OffersQuery, ProgressRequest, ResolveRequest } from '../../shared/schemas/responders.ts';
import type { Clock } from '../clock.ts';
import type { Db, ResponderRow } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import { parseInput } from '../http/parse.ts';
import { acceptOffer, declineOffer, reportProgress, resolveAssigned, responderView } from '../dispatch/responder-actions.ts';
import { assignmentsOf, pendingOffersFor } from '../dispatch/store.ts';
import { buildResponderOpenApiDocument } from './openapi.ts';
import { rowToResponder } from './responder.ts';
import { findResponderByToken, reportAvailability } from './service.ts';

const TOKEN = /^rtk_[0-9A-Za-z]{32,64}$/;

/**
 * The responder API at /v1/responder, apart from the partner API: a responder's phone app
 * authenticates with its own token (`Authorization: Bearer rtk_...`), reports availability and
 * location, and (with the dispatch engine) sees and answers offers.
 */
export function responderRoutes(deps: { db: Db; clock: Clock }): Router {
  const router = Router();

  async function responderOf(req: Request): Promise<ResponderRow> {
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(req.get('authorization') ?? '');
    const token = match?.[1];
    if (!token || !TOKEN.test(token)) throw new ApiError(401, 'Missing or malformed responder token: send Authorization: Bearer rtk_...');
    const row = await findResponderByToken(deps.db, token);
    if (!row || row.status !== 'active') throw new ApiError(401, 'Invalid or deactivated responder token');
    return row;
  }

  const document = JSON.stringify(buildResponderOpenApiDocument());
  router.get('/openapi.json', (_req, res) => {
    res.type('application/json').send(document);
  });

  router.get('/me', async (req, res) => {
    res.json({ responder: rowToResponder(await responderOf(req)) });
  });

  router.put('/availability', async (req, res) => {
    const responder = await responderOf(req);
    const body = parseInput(AvailabilityRequest, req.body, 'body');
    res.json({ responder: await reportAvailability(deps.db, deps.clock, responder.responder_id, body) });
  });

  const offersOf = async (responderId: string) =>
    (await pendingOffersFor(deps.db, responderId)).map((row) => ({
      offer_id: row.offer_id,
      distance_km: Number(row.distance_km),
      offered_at: row.offered_at,
      incident: responderView(row),
    }));

  /** Pending offers; with `?wait=N` a long poll that answers as soon as one arrives (checked every 500 ms). */
  router.get('/offers', async (req, res) => {
    const responder = await responderOf(req);
    const { wait } = parseInput(OffersQuery, req.query, 'query');
    const until = Date.now() + wait * 1000;
    let offers = await offersOf(responder.responder_id);
    let closed = false;
    req.on('close', () => (closed = true));
    while (!offers.length && Date.now() < until && !closed) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      offers = await offersOf(responder.responder_id);
    }
    if (!closed) res.json({ offers });
  });

  const OfferParams = z.object({ offerId: z.string() });
  const IncidentParams = z.object({ incidentId: z.string() });

  router.post('/offers/:offerId/accept', async (req, res) => {
    const responder = await responderOf(req);
    const { offerId } = parseInput(OfferParams, req.params, 'params');
    res.json({ incident: await acceptOffer(deps.db, deps.clock, responder, offerId) });
  });

  router.post('/offers/:offerId/decline', async (req, res) => {
    const responder = await responderOf(req);
    const { offerId } = parseInput(OfferParams, req.params, 'params');
    res.json({ offer: await declineOffer(deps.db, deps.clock, responder, offerId) });
  });

  /** Incidents assigned to this responder that are open, and any closed in the last day (a cancellation reaches them here). */
  router.get('/assignments', async (req, res) => {
    const responder = await responderOf(req);
    const since = new Date(deps.clock.now().getTime() - 24 * 3_600_000).toISOString();
    res.json({ incidents: (await assignmentsOf(deps.db, responder.responder_id, since)).map(responderView) });
  });

  router.post('/incidents/:incidentId/status', async (req, res) => {
    const responder = await responderOf(req);
    const { incidentId } = parseInput(IncidentParams, req.params, 'params');
    const body = parseInput(ProgressRequest, req.body, 'body');
    res.json({ incident: await reportProgress(deps.db, deps.clock, responder, incidentId, body.status, body.eta_minutes) });
  });

  router.post('/incidents/:incidentId/resolve', async (req, res) => {
    const responder = await responderOf(req);
    const { incidentId } = parseInput(IncidentParams, req.params, 'params');
    const body = parseInput(ResolveRequest, req.body, 'body');
    res.json({ incident: await resolveAssigned(deps.db, deps.clock, responder, incidentId, body.outcome, body.notes) });
  });

  return router;
}
