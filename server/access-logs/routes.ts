import { Router } from 'express';
import {
  CheckoutRequest,
  CreateAccessLogRequest,
  CurrentVisitorsQuery,
  ListAccessLogsQuery,
  LogIdParams,
  StatsQuery,
} from '../../shared/schemas/access.ts';
import { tenantOf } from '../auth/context.ts';
import { parseInput } from '../http/parse.ts';
import type { RouteDeps } from '../http/route-deps.ts';
import { requestDb } from '../idempotency/middleware.ts';
import { accessLogStats, checkInWalkIn, checkOutVisitor, currentVisitors, getAccessLog, listAccessLogs } from './service.ts';

export function accessLogRoutes(deps: RouteDeps): Router {
  const router = Router();

  router.post('/access-logs', deps.guard('access_codes:write'), deps.idempotent, async (req, res) => {
    const body = parseInput(CreateAccessLogRequest, req.body, 'body');
    res.status(201).json({ access_log: await checkInWalkIn(requestDb(req, deps.db), deps.clock, tenantOf(req), body) });
  });

  router.get('/access-logs/current-visitors', deps.guard('logs:read'), async (req, res) => {
    const query = parseInput(CurrentVisitorsQuery, req.query, 'query');
    res.json(await currentVisitors(deps.db, deps.clock, tenantOf(req), query));
  });

  router.get('/access-logs/stats', deps.guard('logs:read'), async (req, res) => {
    const query = parseInput(StatsQuery, req.query, 'query');
    res.json(await accessLogStats(deps.db, tenantOf(req), query));
  });

  router.get('/access-logs', deps.guard('logs:read'), async (req, res) => {
    const query = parseInput(ListAccessLogsQuery, req.query, 'query');
    res.json(await listAccessLogs(deps.db, deps.clock, tenantOf(req), query));
  });

  router.get('/access-logs/:logId', deps.guard('logs:read'), async (req, res) => {
    const { logId } = parseInput(LogIdParams, req.params, 'params');
    res.json({ access_log: await getAccessLog(deps.db, deps.clock, tenantOf(req), logId) });
  });

  router.patch('/access-logs/:logId/checkout', deps.guard('access_codes:write'), deps.idempotent, async (req, res) => {
    const { logId } = parseInput(LogIdParams, req.params, 'params');
    const body = parseInput(CheckoutRequest, req.body, 'body');
    res.json({ access_log: await checkOutVisitor(requestDb(req, deps.db), deps.clock, tenantOf(req), logId, body) });
  });

  return router;
}
