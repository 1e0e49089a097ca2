import { z } from 'zod';
import { CallListView } from '../../shared/schemas/sites.ts';
import { ControlStandDownRequest, type StaffRole } from '../../shared/schemas/staff.ts';
import { routeFor } from '../http/define-route.ts';
import { errors, ok } from '../http/responses.ts';
import type { RouteDeps } from '../route-deps.ts';
import { staffOf } from '../staff/session.ts';
import * as operations from './service.ts';
import { opsDeps } from './routes.ts';

const route = routeFor<RouteDeps>();
const DISPATCHERS: readonly StaffRole[] = ['controller', 'supervisor'];
const IncidentParams = z.object({ incidentId: z.string() });
const Contact = z.object({ name: z.string(), phone: z.string().nullable() });

/** A controller stands one responder down, and sees whom to call (issue #47): beside the queue's other actions (./routes.ts). */
export const controlRouteList = [
  route({
    method: 'post',
    path: '/incidents/:incidentId/stand-down',
    access: 'staff',
    guardOptions: { staffRoles: DISPATCHERS },
    params: IncidentParams,
    body: ControlStandDownRequest,
    operationId: 'standDownResponder',
    tags: ['Operations'],
    summary: 'Stand one responder down, saying why',
    description:
      'An offer of the incident open to them is withdrawn (`released: offer`; the timeline entry `control_stood_down` at the current status). The responder who holds it, assigned, responding or on scene, is released (`released: assignment`): the incident goes back to `dispatching` with a fresh dispatch window (the status entry `dispatched`; `incident.updated`), for another responder or to be closed, and the responder is free again. Either way the message names "Tsaro control (first name)" and the reason, and the event `incident.control_stood_down` carries `stood_down {responder_id, name, reason}`. 409 when the responder has neither.',
    responses: { ...ok(200, 'Stood down', z.object({ released: z.enum(['offer', 'assignment']) })), ...errors(403, 404, 409) },
    async handler({ params, body }, req, res, deps) {
      res.json(await operations.standDownResponder(opsDeps(deps), staffOf(req), params.incidentId, body.responder_id, body.reason));
    },
  }),
  route({
    method: 'get',
    path: '/incidents/:incidentId/call-list',
    access: 'staff',
    guardOptions: { staffRoles: DISPATCHERS },
    params: IncidentParams,
    operationId: 'incidentCallList',
    tags: ['Operations'],
    summary: 'Whom to call: the subject, and the site\'s call list in order',
    description: 'Phones in E.164 (the console dials them with tel: links). `site` is null for an incident at no site. Every opening is recorded in the service audit log.',
    responses: {
      ...ok(200, 'Whom to call', z.object({ subject: Contact, site: z.object({ site_id: z.string(), name: z.string(), call_list: z.array(CallListView) }).nullable() })),
      ...errors(403, 404),
    },
    async handler({ params }, req, res, deps) {
      res.json(await operations.callList(opsDeps(deps), staffOf(req), params.incidentId));
    },
  }),
];
