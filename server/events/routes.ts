import { z } from 'zod';
import { EVENT_STREAM_SCOPES } from '../../shared/schemas/event-scopes.ts';
import { Event, EventPage, EventStreamHeaders, EventStreamQuery, ListEventsQuery } from '../../shared/schemas/webhooks.ts';
import { authOf, tenantOf } from '../auth/context.ts';
import { errors, ok } from '../http/responses.ts';
import { routeFor, routerOf } from '../http/define-route.ts';
import type { RouteDeps } from '../route-deps.ts';
import { getEvent, listEvents } from './service.ts';
import { openEventStream } from './stream.ts';

const route = routeFor<RouteDeps>();
const tags = ['Events'];
const EventIdParams = z.object({ eventId: z.string() });

/** The `admin` scope's event log: what a receiver that was down recovers from. */
export const eventRouteList = [
  route({
    method: 'get',
    lane: 'reads',
    path: '/events',
    access: 'admin',
    query: ListEventsQuery,
    operationId: 'listEvents',
    tags,
    summary: 'The event log, newest first',
    description:
      'Everything a webhook would have delivered, so a receiver that was down can recover. Lists only the types the key may read: `incidents:read` → `incident.*`, `access_codes:read` → `access_code.*`, `logs:read` → `visitor.*` and `kiosk.*`; a `type` filter the key may not read is a 403 naming the scope.',
    responses: { ...ok(200, 'One page', EventPage), ...errors() },
    async handler({ query, db }, req, res) {
      res.json(await listEvents(db, tenantOf(req), authOf(req).scopes, query));
    },
  }),
  // Before /events/:eventId, which would take `stream` for an id.
  route({
    method: 'get',
    path: '/events/stream',
    access: EVENT_STREAM_SCOPES[0]!,
    guardOptions: { anyScopeOf: EVENT_STREAM_SCOPES.slice(1) },
    query: EventStreamQuery,
    headers: EventStreamHeaders,
    operationId: 'streamEvents',
    tags,
    summary: 'The event stream (server-sent events), oldest first',
    description: [
      'Every event the caller may read (`incidents:read` → `incident.*`, `access_codes:read` → `access_code.*`, `logs:read` → `visitor.*` and `kiosk.*`), as `text/event-stream`:',
      'each event is `id: <event id>`, `event: <type>` and one `data:` line holding the envelope `GET /events` lists, then a blank line.',
      'Without `Last-Event-ID` it starts now; with it, it resumes after that event (up to 72 hours back) and skips none, whatever order transactions committed in, on any host.',
      'An unknown id is a 400 and one older than 72 hours a 410, both naming `Last-Event-ID`: read what was missed from `GET /events` and open the stream without it.',
      'A comment line `: heartbeat` comes every 15 s; the stream closes within about a second when the key is revoked or expires or the person is removed or signed out, and when the server stops; a reader too slow to keep up (1 MB waiting) is closed: reconnect with `Last-Event-ID`.',
      'A key or a person may hold `STREAM_MAX_PER_KEY` streams open on a host (20 by default) and a host `STREAM_MAX_PER_HOST` (5,000): one more is a 429 with Retry-After.',
      'Test events only with `include_test=true`. Opening the stream counts one request against the rate limit; the events do not.',
      '`incident.note_added` and `incident.responder_location` come here as any other type.',
    ].join(' '),
    responses: {
      200: {
        description: 'The stream: `id:`/`event:`/`data:` frames, `: heartbeat` comments every 15 s',
        content: { 'text/event-stream': { schema: z.string().meta({ example: 'id: evt_01JD7ZK3Q0C7W5N2Y8S4V6X9AB\nevent: incident.created\ndata: {"id":"evt_01JD7ZK3Q0C7W5N2Y8S4V6X9AB","type":"incident.created","created_at":"2026-11-26T05:40:00.000Z","data":{"incident_id":"inc_01JD7ZK3Q0C7W5N2Y8S4V6X9AC"}}\n\n' }) } },
      },
      ...errors(400, 410, 429),
    },
    async handler({ query }, req, res, deps) {
      await openEventStream({ db: deps.db, clock: deps.clock, feed: deps.eventFeed, streams: deps.eventStreams }, req, res, authOf(req), {
        lastEventId: req.get('last-event-id') || query.last_event_id,
        types: query.types,
        includeTest: query.include_test,
      });
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
