import { z } from 'zod';
import { routeFor } from '../http/define-route.ts';
import { errors } from '../http/responses.ts';
import type { RouteDeps } from '../route-deps.ts';
import { openStaffLive } from './live.ts';

const route = routeFor<RouteDeps>();

const EXAMPLE =
  'event: snapshot\ndata: {"responders":[{"responder_id":"rsp_01JD7ZK3Q0C7W5N2Y8S4V6X9AB","name":"Emeka Okafor","duty_status":"available","status_since":"2026-11-29T05:40:00.000Z","out_of_service_reason":null,"latitude":6.45,"longitude":3.4,"location_at":"2026-11-29T05:41:00.000Z"}],"queue":[],"alerts":[],"areas":[],"shifts":[],"sites":[],"uncovered":[],"radius_km":5,"at":"2026-11-29T05:41:01.000Z"}\n\n' +
  'event: responders\ndata: {"responders":[{"responder_id":"rsp_01JD7ZK3Q0C7W5N2Y8S4V6X9AB","name":"Emeka Okafor","duty_status":"offered","status_since":"2026-11-29T05:42:00.000Z","out_of_service_reason":null,"latitude":6.451,"longitude":3.401,"location_at":"2026-11-29T05:42:00.000Z"}],"removed":[],"at":"2026-11-29T05:42:01.000Z"}\n\n';

/** The staff channel (server/operations/live.ts): the live map's and the queue screens' feed. */
export const liveRouteList = [
  route({
    method: 'get',
    path: '/live',
    access: 'staff',
    operationId: 'staffLive',
    tags: ['Operations'],
    summary: 'The staff channel: responders, queue, alerts, areas and shifts as they change (server-sent events)',
    description: [
      "`text/event-stream` for the operations console's live map and queue, apart from the partners' event log. Every staff role may open it.",
      'It starts with `event: snapshot` (every verified live responder with its duty status, the status\'s start, the last fix and its time; the live queue as `GET /queue` lists it; open alerts; areas; shifts as `GET /shifts` lists them, each with `on_now`; placed sites; `uncovered`: sites and incidents waiting for help with no available responder with a fresh fix within the dispatch radius, and areas with a shift now and no such responder inside them (`kind: area`, with `note`: who is on shift there and where), `radius_km`).',
      'Then, as they change: `responders` (`responders`: those whose position, status or name changed; `removed`: ids no longer on the map), `queue`, `alerts`, `areas`, `shifts`, `sites`, `uncovered` (each the whole list again).',
      'Each host reads the network once a second while any staff stream is open on it, so a change made on any host reaches every screen within about a second; the cost is per host, not per screen.',
      'After a drop, open it again: the new snapshot is the resume (there is no Last-Event-ID). A comment `: heartbeat` comes every 15 s; the stream closes when the staff session ends (within about a second), when the server stops, and when a screen falls 4 MB behind. A person may hold `STREAM_MAX_PER_KEY` streams open on a host and a host `STREAM_MAX_PER_HOST` in all (with the event streams): one more is a 429 with Retry-After.',
      'Names, titles and reasons are as partners and responders wrote them: show them as text.',
    ].join(' '),
    responses: {
      200: { description: 'The stream: `event:`/`data:` frames, `: heartbeat` comments every 15 s', content: { 'text/event-stream': { schema: z.string().meta({ example: EXAMPLE }) } } },
      ...errors(429, 503),
    },
    async handler(_input, req, res, deps) {
      await openStaffLive(deps.staffLive, { db: deps.db, clock: deps.clock, settings: { idleTimeoutMin: deps.config.CONSOLE_IDLE_TIMEOUT_MIN, publicUrl: deps.config.PUBLIC_URL }, streams: deps.eventStreams }, req, res);
    },
  }),
];
