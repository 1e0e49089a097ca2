import { z } from 'zod';
import { Empty } from '../../shared/schemas/common.ts';
import { AlertsQuery, Duty, NewServiceArea, NewShift, OutOfServiceRequest, ServiceArea, Shift, StaffAlert } from '../../shared/schemas/duty.ts';
import type { StaffRole } from '../../shared/schemas/staff.ts';
import * as duty from '../duty/service.ts';
import { routeFor } from '../http/define-route.ts';
import { notFound } from '../http/errors.ts';
import { errors, ok } from '../http/responses.ts';
import { responderById } from '../responders/service.ts';
import type { RouteDeps } from '../route-deps.ts';
import { staffOf } from '../staff/session.ts';

/**
 * The operations centre's duty routes (issue #47): areas and shifts (a network admin plans them;
 * every staff role reads them), the alerts staff see, and a supervisor taking a responder out of
 * service and back.
 */
const route = routeFor<RouteDeps>();
const tags = ['Duty'];
/** Who plans the network: areas and shifts. */
const PLANNERS: readonly StaffRole[] = ['network_admin'];
/** Who deals with alerts (acknowledges a panic, a missed check-in). */
const DISPATCHERS: readonly StaffRole[] = ['controller', 'supervisor'];
const AreaParams = z.object({ areaId: z.string() });
const ShiftParams = z.object({ shiftId: z.string() });
const ResponderParams = z.object({ responderId: z.string() });
const AlertParams = z.object({ alertId: z.string() });
const ShiftsQuery = z.object({ area_id: z.string().optional(), responder_id: z.string().optional() });

export const dutyDepsOf = (deps: Pick<RouteDeps, 'db' | 'clock' | 'webhookQueue' | 'config'>): duty.DutyDeps => ({
  db: deps.db,
  clock: deps.clock,
  webhookQueue: deps.webhookQueue,
  settings: duty.dutySettingsOf(deps.config),
});

async function liveResponder(deps: RouteDeps, responderId: string) {
  const responder = await responderById(deps.db, responderId);
  if (!responder || responder.environment !== 'live') throw notFound('Responder');
  return responder;
}

export const dutyRouteList = [
  route({
    method: 'get',
    path: '/areas',
    access: 'staff',
    operationId: 'listAreas',
    tags,
    summary: 'The areas of the network: named circles and polygons',
    responses: { ...ok(200, 'Every area, by name', z.object({ areas: z.array(ServiceArea) })), ...errors() },
    async handler(_input, _req, res, deps) {
      res.json({ areas: await duty.listAreas(deps.db) });
    },
  }),
  route({
    method: 'post',
    path: '/areas',
    access: 'staff',
    guardOptions: { staffRoles: PLANNERS },
    body: NewServiceArea,
    operationId: 'createArea',
    tags,
    summary: 'Draw an area: a circle or a polygon',
    description: 'GeoJSON-ish: `{"type": "Circle", "center": [lng, lat], "radius_m": 2000}` or `{"type": "Polygon", "coordinates": [[[lng, lat], ..., [lng, lat]]]}` (one closed ring). A bad shape is a 400 naming the field (`shape.coordinates[0]`).',
    responses: { ...ok(201, 'Drawn', z.object({ area: ServiceArea })), ...errors(400, 403) },
    async handler({ body }, req, res, deps) {
      res.status(201).json({ area: await duty.createArea(dutyDepsOf(deps), staffOf(req), body) });
    },
  }),
  route({
    method: 'delete',
    path: '/areas/:areaId',
    access: 'staff',
    guardOptions: { staffRoles: PLANNERS },
    params: AreaParams,
    operationId: 'removeArea',
    tags,
    summary: 'Remove an area (its shifts first)',
    responses: { ...ok(200, 'Removed', Empty), ...errors(403, 404, 409) },
    async handler({ params }, req, res, deps) {
      await duty.removeArea(dutyDepsOf(deps), staffOf(req), params.areaId);
      res.json({});
    },
  }),
  route({
    method: 'get',
    path: '/shifts',
    access: 'staff',
    query: ShiftsQuery,
    operationId: 'listShifts',
    tags,
    summary: 'The shifts planned: a responder in an area from an hour to an hour, every day',
    description: 'Hours are in SHIFT_TIME_ZONE (default Africa/Lagos); `on_now` says whether the shift covers the present hour.',
    responses: { ...ok(200, 'Every shift, by area and start', z.object({ shifts: z.array(Shift) })), ...errors() },
    async handler({ query }, _req, res, deps) {
      res.json({ shifts: await duty.listShifts(dutyDepsOf(deps), { areaId: query.area_id, responderId: query.responder_id }) });
    },
  }),
  route({
    method: 'post',
    path: '/shifts',
    access: 'staff',
    guardOptions: { staffRoles: PLANNERS },
    body: NewShift,
    operationId: 'createShift',
    tags,
    summary: 'Plan a shift',
    description: '`end_hour` before `start_hour` runs overnight (22 to 6); 24 is midnight. A responder not in the live network, or an area that does not exist, is a 400 naming the field.',
    responses: { ...ok(201, 'Planned', z.object({ shift: Shift })), ...errors(400, 403) },
    async handler({ body }, req, res, deps) {
      res.status(201).json({ shift: await duty.createShift(dutyDepsOf(deps), staffOf(req), body) });
    },
  }),
  route({
    method: 'delete',
    path: '/shifts/:shiftId',
    access: 'staff',
    guardOptions: { staffRoles: PLANNERS },
    params: ShiftParams,
    operationId: 'removeShift',
    tags,
    summary: 'Remove a shift',
    responses: { ...ok(200, 'Removed', Empty), ...errors(403, 404) },
    async handler({ params }, req, res, deps) {
      await duty.removeShift(dutyDepsOf(deps), staffOf(req), params.shiftId);
      res.json({});
    },
  }),
  route({
    method: 'get',
    path: '/alerts',
    access: 'staff',
    query: AlertsQuery,
    operationId: 'listAlerts',
    tags,
    summary: 'What staff must look at, newest first',
    description:
      'A responder\'s panic; an "I\'m OK" missed on scene (CHECK_IN_EVERY_S); on shift but not on duty; available with no fix for NO_FIX_ALERT_S; a status older than its limit (STATUS_LIMIT_*_S). The alerts job looks every ALERTS_EVERY_S on every host; a condition\'s alert clears itself when the condition ends, a panic or a missed check-in when a controller acknowledges it (a check-in clears a missed one too). Each opening is in the service audit log (`alertRaised`, by `system`).',
    responses: { ...ok(200, 'Alerts', z.object({ alerts: z.array(StaffAlert) })), ...errors() },
    async handler({ query }, _req, res, deps) {
      res.json({ alerts: await duty.listAlerts(deps.db, query.state) });
    },
  }),
  route({
    method: 'post',
    path: '/alerts/:alertId/acknowledge',
    access: 'staff',
    guardOptions: { staffRoles: DISPATCHERS },
    params: AlertParams,
    body: Empty,
    operationId: 'acknowledgeAlert',
    tags,
    summary: 'Dealt with: the alert is cleared',
    responses: { ...ok(200, 'Cleared', Empty), ...errors(403, 404) },
    async handler({ params }, req, res, deps) {
      await duty.acknowledgeAlert(dutyDepsOf(deps), staffOf(req), params.alertId);
      res.json({});
    },
  }),
  route({
    method: 'post',
    path: '/responders/:responderId/out-of-service',
    access: 'staff',
    guardOptions: { staffRoles: ['supervisor'] },
    params: ResponderParams,
    body: OutOfServiceRequest,
    operationId: 'takeResponderOutOfService',
    tags,
    summary: 'Take a responder out of service, saying why',
    description: 'Unavailable at once, their open offers withdrawn; their app\'s heartbeat does not put them back. The status `out_of_service` with the reason shows in the roster and to candidates.',
    responses: { ...ok(200, 'Their status now', z.object({ duty: Duty })), ...errors(400, 403, 404, 409) },
    async handler({ params, body }, req, res, deps) {
      res.json({ duty: await duty.takeOutOfService(dutyDepsOf(deps), await liveResponder(deps, params.responderId), body.reason, staffOf(req)) });
    },
  }),
  route({
    method: 'delete',
    path: '/responders/:responderId/out-of-service',
    access: 'staff',
    guardOptions: { staffRoles: ['supervisor'] },
    params: ResponderParams,
    operationId: 'returnResponderToService',
    tags,
    summary: 'Back in service (off duty until their app reports on duty)',
    responses: { ...ok(200, 'Their status now', z.object({ duty: Duty })), ...errors(403, 404, 409) },
    async handler({ params }, req, res, deps) {
      res.json({ duty: await duty.returnToService(dutyDepsOf(deps), await liveResponder(deps, params.responderId), staffOf(req)) });
    },
  }),
];
