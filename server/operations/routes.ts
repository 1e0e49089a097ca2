import { z } from 'zod';
import { Empty } from '../../shared/schemas/common.ts';
import { Incident } from '../../shared/schemas/incidents.ts';
import {
  Candidate,
  ControlCloseRequest,
  ControlNoteRequest,
  ControlOfferRequest,
  ControlReasonRequest,
  QueueItem,
  QueueQuery,
  URGENCIES,
  type StaffRole,
} from '../../shared/schemas/staff.ts';
import { routeFor } from '../http/define-route.ts';
import { errors, ok } from '../http/responses.ts';
import type { RouteDeps } from '../route-deps.ts';
import { staffOf } from '../staff/session.ts';
import * as operations from './service.ts';

const route = routeFor<RouteDeps>();
const tags = ['Operations'];
/** Who works the queue: controllers, and the supervisors above them. */
const DISPATCHERS: readonly StaffRole[] = ['controller', 'supervisor'];
const IncidentParams = z.object({ incidentId: z.string() });

/** What the operations service needs, from the routes' deps: one place for every staff route file. */
export const opsDeps = (deps: RouteDeps): operations.OperationsDeps => ({
  db: deps.db,
  clock: deps.clock,
  webhookQueue: deps.webhookQueue,
  dispatchWindowS: deps.config.DISPATCH_WINDOW_S,
  escalationWindowS: deps.config.ESCALATION_WINDOW_S,
  fixMaxAgeS: deps.config.DISPATCH_FIX_MAX_AGE_S,
});

const IncidentOffer = z.object({
  offer_id: z.string(),
  responder_id: z.string(),
  responder_name: z.string(),
  status: z.enum(['pending', 'accepted', 'declined', 'lost', 'withdrawn']),
  round: z.int(),
  distance_km: z.number(),
  offered_at: z.string(),
  answered_at: z.string().nullable(),
  offered_by: z.string().nullable().meta({ description: 'The controller\'s staff id for a manual offer; null: the dispatch engine' }),
  decline_reason: z.string().nullable(),
});
const IncidentDetails = z
  .object({
    incident: Incident,
    organization_name: z.string(),
    urgency: z.enum(URGENCIES),
    owner: QueueItem.shape.owner,
    offers: z.array(IncidentOffer),
  })
  .meta({ id: 'ControlIncidentDetails' });

export const operationsRouteList = [
  route({
    method: 'get',
    path: '/queue',
    access: 'staff',
    guardOptions: { staffRoles: DISPATCHERS },
    query: QueueQuery,
    operationId: 'liveQueue',
    tags,
    summary: 'Every live incident across organizations, most urgent first',
    description: 'A responder in danger (their panic, or two "I\'m OK" check-ins missed on scene), then unresponsive, then escalated, then those whose dispatch window is half spent with nobody yet, then the rest; oldest first within each. Live only (sandbox has its simulated network); drills only with `drills=true`.',
    responses: { ...ok(200, 'The queue', z.object({ incidents: z.array(QueueItem) })), ...errors(403) },
    async handler({ query }, _req, res, deps) {
      res.json({ incidents: await operations.liveQueue(opsDeps(deps), { drills: query.drills === 'true' }) });
    },
  }),
  route({
    method: 'get',
    path: '/incidents/:incidentId',
    access: 'staff',
    guardOptions: { staffRoles: DISPATCHERS },
    params: IncidentParams,
    operationId: 'controlIncident',
    tags,
    summary: "A live incident's details, its offers and declines",
    description: 'The incident as its partner sees it (subject included): every opening is recorded in the service audit log.',
    responses: { ...ok(200, 'The incident', IncidentDetails), ...errors(403, 404) },
    async handler({ params }, req, res, deps) {
      res.json(await operations.incidentDetails(opsDeps(deps), staffOf(req), params.incidentId));
    },
  }),
  route({
    method: 'get',
    path: '/incidents/:incidentId/candidates',
    access: 'staff',
    guardOptions: { staffRoles: DISPATCHERS },
    params: IncidentParams,
    operationId: 'dispatchCandidates',
    tags,
    summary: 'The nearest verified responders: distance, status, age of fix, skills',
    responses: { ...ok(200, 'Nearest first', z.object({ candidates: z.array(Candidate) })), ...errors(403, 404) },
    async handler({ params }, _req, res, deps) {
      res.json({ candidates: await operations.nearestCandidates(opsDeps(deps), params.incidentId) });
    },
  }),
  route({
    method: 'post',
    path: '/incidents/:incidentId/take',
    access: 'staff',
    guardOptions: { staffRoles: DISPATCHERS },
    params: IncidentParams,
    body: Empty,
    operationId: 'takeIncident',
    tags,
    summary: 'Take the incident: you own it',
    description: 'A timeline entry `control_taken` ("Tsaro control (Kemi) is handling it") and the event `incident.control_taken`.',
    responses: { ...ok(200, 'Taken', IncidentDetails), ...errors(403, 404, 409) },
    async handler({ params }, req, res, deps) {
      res.json(await operations.takeIncident(opsDeps(deps), staffOf(req), params.incidentId));
    },
  }),
  route({
    method: 'post',
    path: '/incidents/:incidentId/offers',
    access: 'staff',
    guardOptions: { staffRoles: DISPATCHERS },
    params: IncidentParams,
    body: ControlOfferRequest,
    operationId: 'offerIncident',
    tags,
    summary: 'Offer the incident to one chosen responder',
    description:
      'A verified responder of the live network with no incident in hand; one who declined it before may be asked again. The offer reaches their app as the engine\'s do (`GET /v1/responder/offers`). A timeline entry `control_offered` and the event `incident.control_offered`. 409 when the incident is assigned (reassign first) or ended.',
    responses: { ...ok(201, 'Offered', z.object({ offer_id: z.string() })), ...errors(403, 404, 409) },
    async handler({ params, body }, req, res, deps) {
      res.status(201).json(await operations.offerToResponder(opsDeps(deps), staffOf(req), params.incidentId, body.responder_id));
    },
  }),
  route({
    method: 'post',
    path: '/incidents/:incidentId/reassign',
    access: 'staff',
    guardOptions: { staffRoles: DISPATCHERS },
    params: IncidentParams,
    body: ControlReasonRequest,
    operationId: 'reassignIncident',
    tags,
    summary: 'Stand the assigned responder down and send the incident back to dispatch',
    description: 'assigned or responding → dispatching, with a fresh dispatch window; the responder is free again. The status entry `dispatched` names the controller and why; events `incident.updated` and `incident.control_reassigned`.',
    responses: { ...ok(200, 'Back in dispatch', Empty), ...errors(403, 404, 409) },
    async handler({ params, body }, req, res, deps) {
      await operations.reassignIncident(opsDeps(deps), staffOf(req), params.incidentId, body.reason);
      res.json({});
    },
  }),
  route({
    method: 'post',
    path: '/incidents/:incidentId/notes',
    access: 'staff',
    guardOptions: { staffRoles: DISPATCHERS },
    params: IncidentParams,
    body: ControlNoteRequest,
    operationId: 'noteIncident',
    tags,
    summary: 'Note what was done ("police on the way")',
    description: 'A timeline entry `control_note` naming the controller, and the event `incident.control_note`.',
    responses: { ...ok(200, 'Noted', Empty), ...errors(403, 404, 409) },
    async handler({ params, body }, req, res, deps) {
      await operations.noteByControl(opsDeps(deps), staffOf(req), params.incidentId, body.message);
      res.json({});
    },
  }),
  route({
    method: 'post',
    path: '/incidents/:incidentId/close',
    access: 'staff',
    guardOptions: { staffRoles: DISPATCHERS },
    params: IncidentParams,
    body: ControlCloseRequest,
    operationId: 'closeIncident',
    tags,
    summary: 'Close the incident with an outcome, from any active status',
    description: 'Open offers are withdrawn and the responder freed. The status entry `resolved` names the controller; events `incident.resolved` and `incident.control_closed`.',
    responses: { ...ok(200, 'Closed', Empty), ...errors(403, 404, 409) },
    async handler({ params, body }, req, res, deps) {
      await operations.closeIncident(opsDeps(deps), staffOf(req), params.incidentId, body.outcome, body.notes);
      res.json({});
    },
  }),
];
