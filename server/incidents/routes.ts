import { Router } from 'express';
import {
  AddNoteRequest,
  CancelIncidentRequest,
  CreateIncidentRequest,
  IncidentIdParams,
  ListIncidentsQuery,
} from '../../shared/schemas/incidents.ts';
import { tenantOf } from '../auth/context.ts';
import type { Executor } from '../db/schema.ts';
import { parseInput } from '../http/parse.ts';
import type { RouteDeps } from '../http/route-deps.ts';
import { requestDb, whenCommitted } from '../idempotency/middleware.ts';
import { addIncidentNote, cancelIncident, createIncident, getIncident, listIncidents } from './service.ts';

export function incidentRoutes(deps: RouteDeps): Router {
  const router = Router();
  const windows = { dispatchWindowS: deps.config.DISPATCH_WINDOW_S, escalationWindowS: deps.config.ESCALATION_WINDOW_S };
  const serviceDeps = { clock: deps.clock, windows, onCancelled: (trx: Executor, id: string) => deps.dispatcher.incidentCancelled(trx, id) };

  router.post('/incidents', deps.guard('incidents:write'), deps.idempotent, async (req, res) => {
    const body = parseInput(CreateIncidentRequest, req.body, 'body');
    const { incident, created } = await createIncident(requestDb(req, deps.db), serviceDeps, tenantOf(req), body);
    if (!created) {
      res.status(200).json({ incident, idempotent: true });
      return;
    }
    whenCommitted(req, () => deps.dispatcher.incidentOpened(incident));
    res.status(201).json({ incident });
  });

  router.get('/incidents', deps.guard('incidents:read'), async (req, res) => {
    const query = parseInput(ListIncidentsQuery, req.query, 'query');
    res.json(await listIncidents(deps.db, tenantOf(req), query));
  });

  router.get('/incidents/:incidentId', deps.guard('incidents:read'), async (req, res) => {
    const { incidentId } = parseInput(IncidentIdParams, req.params, 'params');
    res.json({ incident: await getIncident(deps.db, tenantOf(req), incidentId) });
  });

  router.post('/incidents/:incidentId/cancel', deps.guard('incidents:write'), deps.idempotent, async (req, res) => {
    const { incidentId } = parseInput(IncidentIdParams, req.params, 'params');
    const { reason } = parseInput(CancelIncidentRequest, req.body, 'body');
    res.json({ incident: await cancelIncident(requestDb(req, deps.db), serviceDeps, tenantOf(req), incidentId, reason) });
  });

  router.post('/incidents/:incidentId/notes', deps.guard('incidents:write'), deps.idempotent, async (req, res) => {
    const { incidentId } = parseInput(IncidentIdParams, req.params, 'params');
    const { message } = parseInput(AddNoteRequest, req.body, 'body');
    res.json({ incident: await addIncidentNote(requestDb(req, deps.db), serviceDeps, tenantOf(req), incidentId, message) });
  });

  return router;
}
