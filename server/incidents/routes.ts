import type { Request } from 'express';
import {
  AddNoteRequest,
  CancelIncidentRequest,
  CreateIncidentRequest,
  IdempotentIncidentEnvelope,
  IncidentEnvelope,
  IncidentIdParams,
  IncidentPage,
  ListIncidentsQuery,
} from '../../shared/schemas/incidents.ts';
import { tenantOf } from '../auth/context.ts';
import type { Executor } from '../db/schema.ts';
import { errors, ok } from '../http/responses.ts';
import { routeFor, routerOf } from '../http/define-route.ts';
import type { RouteDeps } from '../route-deps.ts';
import { whenCommitted } from '../idempotency/middleware.ts';
import { addIncidentNote, cancelIncident, createIncident, getIncident, listIncidents } from './service.ts';

const route = routeFor<RouteDeps>();
const tags = ['Incidents'];

const serviceDepsOf = (deps: RouteDeps) => ({
  clock: deps.clock,
  windows: { dispatchWindowS: deps.config.DISPATCH_WINDOW_S, escalationWindowS: deps.config.ESCALATION_WINDOW_S },
  onCancelled: (trx: Executor, id: string) => deps.dispatcher.incidentCancelled(trx, id),
  opening: deps.dispatcher.opening?.bind(deps.dispatcher),
});

// An SOS is never refused for the plan's budget: it is counted while the window has room and
// let through when it is full. Authentication, scope and idempotency apply as to any request.
const isSos = (req: Request) => (req.body as { category?: unknown } | undefined)?.category === 'sos';

export const incidentRouteList = [
  route({
    method: 'post',
    path: '/incidents',
    access: 'incidents:write',
    guardOptions: { neverRefuse: isSos },
    idempotent: true,
    body: CreateIncidentRequest,
    operationId: 'createIncident',
    tags,
    summary: 'Report an incident',
    description:
      'The incident is answered already `dispatching`, its timeline holding `created` and `dispatched`. A body `idempotency_key` seen before answers the first incident with 200 and `idempotent: true`. An SOS (`category: sos`) is never refused for the plan\'s rate limit: it is counted in the key\'s window while the window has room and let through when it is full (key, scope and idempotency still apply).',
    responses: {
      ...ok(201, 'Created and dispatching', IncidentEnvelope),
      ...ok(200, 'The incident first created with this idempotency_key', IdempotentIncidentEnvelope),
      ...errors(409),
      429: {
        ...(errors()['429'] as object),
        description: 'Rate limit exceeded; see Retry-After. Never answered to an SOS (`category: sos`): an SOS past the limit is still created.',
      },
    },
    async handler({ body, db }, req, res, deps) {
      const { incident, created } = await createIncident(db, serviceDepsOf(deps), tenantOf(req), body);
      if (!created) {
        res.status(200).json({ incident, idempotent: true });
        return;
      }
      whenCommitted(req, () => deps.dispatcher.incidentOpened(incident));
      res.status(201).json({ incident });
    },
  }),
  route({
    method: 'get',
    path: '/incidents',
    access: 'incidents:read',
    query: ListIncidentsQuery,
    operationId: 'listIncidents',
    tags,
    summary: 'List incidents, newest first',
    description: 'Only the calling organization and environment.',
    responses: { ...ok(200, 'One page', IncidentPage), ...errors() },
    async handler({ query }, req, res, deps) {
      res.json(await listIncidents(deps.db, tenantOf(req), query));
    },
  }),
  route({
    method: 'get',
    path: '/incidents/:incidentId',
    access: 'incidents:read',
    params: IncidentIdParams,
    operationId: 'getIncident',
    tags,
    summary: 'Get an incident',
    responses: { ...ok(200, 'The incident', IncidentEnvelope), ...errors(404) },
    async handler({ params }, req, res, deps) {
      res.json({ incident: await getIncident(deps.db, tenantOf(req), params.incidentId) });
    },
  }),
  route({
    method: 'post',
    path: '/incidents/:incidentId/cancel',
    access: 'incidents:write',
    idempotent: true,
    params: IncidentIdParams,
    body: CancelIncidentRequest,
    operationId: 'cancelIncident',
    tags,
    summary: 'Cancel an active incident',
    description: 'The reason goes into the timeline. Not active: 409 `Incident is already <status>`.',
    responses: { ...ok(200, 'Cancelled', IncidentEnvelope), ...errors(404, 409) },
    async handler({ params, body, db }, req, res, deps) {
      res.json({ incident: await cancelIncident(db, serviceDepsOf(deps), tenantOf(req), params.incidentId, body.reason) });
    },
  }),
  route({
    method: 'post',
    path: '/incidents/:incidentId/notes',
    access: 'incidents:write',
    idempotent: true,
    params: IncidentIdParams,
    body: AddNoteRequest,
    operationId: 'addIncidentNote',
    tags,
    summary: 'Add a note to an active incident',
    description: 'A timeline entry with `event: note` at the current status. Not active: 409.',
    responses: { ...ok(200, 'The incident with the note appended', IncidentEnvelope), ...errors(404, 409) },
    async handler({ params, body, db }, req, res, deps) {
      res.json({ incident: await addIncidentNote(db, serviceDepsOf(deps), tenantOf(req), params.incidentId, body.message) });
    },
  }),
];

export const incidentRoutes = (deps: RouteDeps) => routerOf(incidentRouteList, deps, deps);
