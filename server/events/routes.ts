import { z } from 'zod';
import { Event, EventPage, ListEventsQuery } from '../../shared/schemas/webhooks.ts';
import { authOf, tenantOf } from '../auth/context.ts';
import { errors, ok } from '../http/responses.ts';
import { routeFor, routerOf } from '../http/define-route.ts';
import type { RouteDeps } from '../route-deps.ts';
import { getEvent, listEvents } from './service.ts';

const route = routeFor<RouteDeps>();
const tags = ['Events'];
const EventIdParams = z.object({ eventId: z.string() });

/** The `admin` scope's event log: what a receiver that was down recovers from. */
export const eventRouteList = [
  route({
    method: 'get',
    path: '/events',
    access: 'admin',
    query: ListEventsQuery,
    operationId: 'listEvents',
    tags,
    summary: 'The event log, newest first',
    description:
      'Everything a webhook would have delivered, so a receiver that was down can recover. Lists only the types the key may read: `incidents:read` → `incident.*`, `access_codes:read` → `access_code.*`, `logs:read` → `visitor.*` and `kiosk.*`; a `type` filter the key may not read is a 403 naming the scope.',
    responses: { ...ok(200, 'One page', EventPage), ...errors() },
    async handler({ query }, req, res, deps) {
      res.json(await listEvents(deps.db, tenantOf(req), authOf(req).scopes, query));
    },
  }),
  route({
    method: 'get',
    path: '/events/:eventId',
    access: 'admin',
    params: EventIdParams,
    operationId: 'getEvent',
    tags,
    summary: 'One event',
    description: 'An event of a type the key may not read (see `listEvents`) is a 404.',
    responses: { ...ok(200, 'The event', z.object({ event: Event })), ...errors(404) },
    async handler({ params }, req, res, deps) {
      res.json({ event: await getEvent(deps.db, tenantOf(req), authOf(req).scopes, params.eventId) });
    },
  }),
];

export const eventRoutes = (deps: RouteDeps) => routerOf(eventRouteList, deps, deps);
