import { narrowedToSite } from '../db/tenant.ts';
import {
  AccessLogEnvelope,
  AccessLogPage,
  AccessLogStats,
  CurrentVisitors,
  CurrentVisitorsQuery,
  ListAccessLogsQuery,
  LogIdParams,
  StatsQuery,
} from '../../shared/schemas/access.ts';
import { tenantOf } from '../auth/context.ts';
import { errors, ok } from '../http/responses.ts';
import { gateRoute, routeFor, routerOf } from '../http/define-route.ts';
import { REPLAY_WINDOW_MS } from '../../shared/kiosk/gate-operations.ts';
import { DAY_MS } from '../../shared/time.ts';
import type { RouteDeps } from '../route-deps.ts';
import { accessLogStats, checkInWalkIn, checkOutVisitor, currentVisitors, getAccessLog, listAccessLogs } from './service.ts';

const route = routeFor<RouteDeps>();
const tags = ['Access logs'];

export const accessLogRouteList = [
  route({
    ...gateRoute('walk_in'),
    idempotent: true,
    operationId: 'createAccessLog',
    tags,
    summary: 'Check in a visitor without a code (walk-in, delivery)',
    description: `\`checked_in_at\` replays an offline walk-in (at most ${REPLAY_WINDOW_MS / DAY_MS} days old).`,
    responses: { ...ok(201, 'Checked in', AccessLogEnvelope), ...errors() },
    async handler({ body, db }, req, res, deps) {
      res.status(201).json({ access_log: await checkInWalkIn(db, deps, tenantOf(req), body) });
    },
  }),
  route({
    method: 'get',
    path: '/access-logs/current-visitors',
    access: 'logs:read',
    query: CurrentVisitorsQuery,
    operationId: 'currentVisitors',
    tags,
    summary: 'Who is on the premises now',
    description: 'Checked in and not out, longest on premises first.',
    responses: { ...ok(200, 'Visitors', CurrentVisitors), ...errors() },
    async handler({ query }, req, res, deps) {
      res.json(await currentVisitors(deps.db, deps.clock, narrowedToSite(tenantOf(req), query.site_id), query));
    },
  }),
  route({
    method: 'get',
    lane: 'reads',
    path: '/access-logs/stats',
    access: 'logs:read',
    query: StatsQuery,
    operationId: 'accessLogStats',
    tags,
    summary: 'Visit statistics for a window',
    description: 'Visits checked in within the window; `currently_on_premises` is now.',
    responses: { ...ok(200, 'Counts', AccessLogStats), ...errors() },
    async handler({ query, db }, req, res) {
      res.json(await accessLogStats(db, narrowedToSite(tenantOf(req), query.site_id), query));
    },
  }),
  route({
    method: 'get',
    lane: 'reads',
    path: '/access-logs',
    access: 'logs:read',
    query: ListAccessLogsQuery,
    operationId: 'listAccessLogs',
    tags,
    summary: 'List visits, newest check-in first',
    description: '`from_date`/`to_date` filter on `checked_in_at` (a visit is created when it checks in).',
    responses: { ...ok(200, 'One page', AccessLogPage), ...errors() },
    async handler({ query, db }, req, res, deps) {
      res.json(await listAccessLogs(db, deps.clock, tenantOf(req), query));
    },
  }),
  route({
    method: 'get',
    path: '/access-logs/:logId',
    access: 'logs:read',
    params: LogIdParams,
    operationId: 'getAccessLog',
    tags,
    summary: 'Get a visit',
    responses: { ...ok(200, 'The visit', AccessLogEnvelope), ...errors(404) },
    async handler({ params }, req, res, deps) {
      res.json({ access_log: await getAccessLog(deps.db, deps.clock, tenantOf(req), params.logId) });
    },
  }),
  route({
    ...gateRoute('checkout'),
    idempotent: true,
    params: LogIdParams,
    operationId: 'checkoutVisitor',
    tags,
    summary: 'Check a visitor out',
    description: 'Already checked out: 409. `checked_out_at` replays an offline checkout.',
    responses: { ...ok(200, 'Checked out', AccessLogEnvelope), ...errors(404, 409) },
    async handler({ params, body, db }, req, res, deps) {
      res.json({ access_log: await checkOutVisitor(db, deps, tenantOf(req), params.logId, body) });
    },
  }),
];

export const accessLogRoutes = (deps: RouteDeps) => routerOf(accessLogRouteList, deps, deps);
