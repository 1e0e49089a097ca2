import type { Request } from 'express';
import {
  CreateRollCallRequest,
  ListRollCallsQuery,
  RollCallEntryEnvelope,
  RollCallEntryParams,
  RollCallEnvelope,
  RollCallIdParams,
  RollCallPage,
  TickRollCallEntryRequest,
} from '../../shared/schemas/roll-calls.ts';
import { authOf, tenantOf } from '../auth/context.ts';
import { ApiError } from '../http/errors.ts';
import { errors, ok } from '../http/responses.ts';
import { routeFor, routerOf } from '../http/define-route.ts';
import type { RouteDeps } from '../route-deps.ts';
import { getRollCall, listRollCalls, markAccountedFor, takeRollCall } from './service.ts';

const route = routeFor<RouteDeps>();
const tags = ['Roll calls'];

/**
 * Working a roll call changes it (`access_codes:write`, as a gate's checkouts do) and shows who
 * is on site with their phones, which is reading the visits (`logs:read`): a key needs both, so
 * neither scope alone reads visitors' phones through it. A person's role holds both or not
 * (operator, admin, owner do).
 */
function requireLogsRead(req: Request): void {
  const auth = authOf(req);
  if (auth.scopes.has('logs:read')) return;
  throw new ApiError(403, auth.person ? `Your role (${auth.person.role}) lacks the logs:read scope` : 'This API key lacks the logs:read scope');
}

const ALSO_LOGS_READ = 'Also needs `logs:read` (the list shows visitors and their phones): a 403 naming it otherwise.';

export const rollCallRouteList = [
  route({
    method: 'post',
    path: '/roll-calls',
    access: 'access_codes:write',
    idempotent: true,
    body: CreateRollCallRequest,
    operationId: 'createRollCall',
    tags,
    summary: 'Take a roll call: everyone on site now',
    description: [
      ALSO_LOGS_READ,
      'A snapshot of every visit checked in and not out (at `entry_points`, or all), with name, phone, entry point and check-in time, each',
      'entry under its `log_id`. `warnings` names the gates at those entry points whose visitors may be missing or listed wrongly: a kiosk',
      'in service that was offline (no heartbeat within KIOSK_OFFLINE_AFTER_S) or whose last heartbeat reported operations waiting to be sent.',
      'The list does not change afterwards; ticks do (`PATCH /roll-calls/{rollCallId}/entries/{logId}`).',
    ].join(' '),
    responses: { ...ok(201, 'The roll call', RollCallEnvelope), ...errors() },
    async handler({ body, db }, req, res, deps) {
      requireLogsRead(req);
      const times = { clock: deps.clock, webhookQueue: deps.webhookQueue, offlineAfterS: deps.config.KIOSK_OFFLINE_AFTER_S };
      res.status(201).json({ roll_call: await takeRollCall(db, times, tenantOf(req), authOf(req).actor, body.entry_points, body.site_id) });
    },
  }),
  route({
    method: 'get',
    lane: 'reads',
    path: '/roll-calls',
    access: 'logs:read',
    query: ListRollCallsQuery,
    operationId: 'listRollCalls',
    tags,
    summary: 'List roll calls, newest first',
    description: 'Each with its counts and warnings, without its entries.',
    responses: { ...ok(200, 'One page', RollCallPage), ...errors() },
    async handler({ query, db }, req, res) {
      res.json(await listRollCalls(db, tenantOf(req), query));
    },
  }),
  route({
    method: 'get',
    path: '/roll-calls/:rollCallId',
    access: 'logs:read',
    params: RollCallIdParams,
    operationId: 'getRollCall',
    tags,
    summary: 'Get a roll call with every entry and its tick',
    responses: { ...ok(200, 'The roll call', RollCallEnvelope), ...errors(404) },
    async handler({ params }, req, res, deps) {
      res.json({ roll_call: await getRollCall(deps.db, tenantOf(req), params.rollCallId) });
    },
  }),
  route({
    method: 'patch',
    path: '/roll-calls/:rollCallId/entries/:logId',
    access: 'access_codes:write',
    idempotent: true,
    params: RollCallEntryParams,
    body: TickRollCallEntryRequest,
    operationId: 'markRollCallEntry',
    tags,
    summary: 'Tick a person as accounted for (or undo it)',
    description: `${ALSO_LOGS_READ} Records who ticked the entry and when; \`false\` clears the tick. Shared by everyone working the roll call: the last change wins. 404 for a log not on this roll call.`,
    responses: { ...ok(200, 'The entry and the counts', RollCallEntryEnvelope), ...errors(404) },
    async handler({ params, body, db }, req, res, deps) {
      requireLogsRead(req);
      res.json(await markAccountedFor(db, deps, tenantOf(req), authOf(req).actor, params.rollCallId, params.logId, body.accounted_for));
    },
  }),
];

export const rollCallRoutes = (deps: RouteDeps) => routerOf(rollCallRouteList, deps, deps);
