import { z } from 'zod';
import { ErrorBody } from '../../shared/schemas/common.ts';
import { Duty, OutOfServiceRequest, PanicAnswer, PanicRequest, SafetyState } from '../../shared/schemas/duty.ts';
import { responderOf } from '../auth/responder-token.ts';
import * as duty from '../duty/service.ts';
import { routeFor } from '../http/define-route.ts';
import { json } from '../http/responses.ts';
import type { ResponderRouteDeps } from './routes.ts';

/**
 * The responder app's duty routes (issue #47): its status with its age, out of service and back,
 * the on-scene "I'm OK" check-in, and the panic button.
 */
const route = routeFor<ResponderRouteDeps>();
const error = (description: string) => ({ description, ...json(ErrorBody) });
const authErrors = { 401: error('Missing, unknown or deactivated responder token') };
const IncidentParams = z.object({ incidentId: z.string() });
const dutyDeps = (deps: ResponderRouteDeps): duty.DutyDeps => ({ db: deps.db, clock: deps.clock, webhookQueue: deps.webhookQueue, settings: duty.dutySettingsOf(deps.config) });
const stateAnswer = { 200: { description: 'This responder\'s status, and on scene when the next "I\'m OK" is due', ...json(SafetyState) } };

export const responderDutyRouteList = [
  route({
    method: 'get',
    path: '/duty',
    access: 'responder',
    operationId: 'duty',
    summary: 'My status, its age, and the next "I\'m OK" check-in on scene',
    description: 'On scene, send `POST /incidents/{id}/check-in` by `check_in.due_at` (every CHECK_IN_EVERY_S, 5 minutes by default): one missed alerts the controllers, who call; two missed put the case at the top of their queue.',
    responses: { ...stateAnswer, ...authErrors },
    async handler(_input, req, res, deps) {
      res.json(await duty.safetyState(dutyDeps(deps), responderOf(req).responder_id));
    },
  }),
  route({
    method: 'put',
    path: '/out-of-service',
    access: 'responder',
    body: OutOfServiceRequest,
    operationId: 'outOfService',
    summary: 'Out of service, saying why (a flat tyre, off sick)',
    description: 'Offered nothing until back; open offers are withdrawn, and the heartbeat does not undo it. Controllers see the reason.',
    responses: { 200: { description: 'My status now', ...json(z.object({ duty: Duty })) }, 400: error('Invalid body'), 409: error('Retired'), ...authErrors },
    async handler({ body }, req, res, deps) {
      res.json({ duty: await duty.takeOutOfService(dutyDeps(deps), responderOf(req), body.reason, 'responder') });
    },
  }),
  route({
    method: 'delete',
    path: '/out-of-service',
    access: 'responder',
    operationId: 'backInService',
    summary: 'Back in service',
    description: 'Off duty until the next heartbeat says available.',
    responses: { 200: { description: 'My status now', ...json(z.object({ duty: Duty })) }, 409: error('Retired'), ...authErrors },
    async handler(_input, req, res, deps) {
      res.json({ duty: await duty.returnToService(dutyDeps(deps), responderOf(req), 'responder') });
    },
  }),
  route({
    method: 'post',
    path: '/incidents/:incidentId/check-in',
    access: 'responder',
    params: IncidentParams,
    operationId: 'checkIn',
    summary: '"I\'m OK" on scene',
    description: 'The next is due CHECK_IN_EVERY_S from now; an alert for a missed one is cleared.',
    responses: { ...stateAnswer, 404: error('Not in this responder\'s hands'), 409: error('Not on scene'), ...authErrors },
    async handler({ params }, req, res, deps) {
      res.json(await duty.checkIn(dutyDeps(deps), responderOf(req).responder_id, params.incidentId));
    },
  }),
  route({
    method: 'post',
    path: '/panic',
    access: 'responder',
    body: PanicRequest,
    operationId: 'panic',
    summary: 'Panic: I need help now',
    description:
      'At once, an alert to Tsaro\'s controllers; with an incident in hand, the case goes to the top of their queue, a timeline entry `control_alert` and the event `incident.control_alert` tell the partner. Pressing it again adds nothing twice to the alert.',
    responses: { 200: { description: 'Raised', ...json(PanicAnswer) }, 400: error('Invalid body'), ...authErrors },
    async handler({ body }, req, res, deps) {
      res.json(await duty.panic(dutyDeps(deps), responderOf(req), body.message));
    },
  }),
];
