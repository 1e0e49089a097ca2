import { Router } from 'express';
import { DangerAnalyticsQuery, DangerZonesQuery, HeatmapQuery, RouteSafetyQuery, SafetyScoreQuery } from '../../shared/schemas/threat.ts';
import { parseInput } from '../http/parse.ts';
import type { RouteDeps } from '../http/route-deps.ts';
import type { ThreatEngine } from './engine.ts';
import { dangerAnalytics, heatmapData, listDangerZones, routeSafety, safetyScore } from './service.ts';

/**
 * Threat intelligence: answered from the in-memory index (no database round trip). The data is
 * the same for every organization, so there is nothing tenant-specific here beyond the key's
 * `analytics:read` scope and rate limit.
 */
export function threatRoutes(deps: RouteDeps & { threat: ThreatEngine }): Router {
  const router = Router();
  const guard = deps.guard('analytics:read');

  router.get('/safety/score', guard, (req, res) => {
    res.json(safetyScore(deps, parseInput(SafetyScoreQuery, req.query, 'query')));
  });
  router.get('/safety/route', guard, (req, res) => {
    res.json(routeSafety(deps, parseInput(RouteSafetyQuery, req.query, 'query')));
  });
  router.get('/danger-zones/analytics', guard, (req, res) => {
    res.json(dangerAnalytics(deps, parseInput(DangerAnalyticsQuery, req.query, 'query')));
  });
  router.get('/danger-zones/heatmap', guard, (req, res) => {
    res.json(heatmapData(deps, parseInput(HeatmapQuery, req.query, 'query')));
  });
  router.get('/danger-zones', guard, async (req, res) => {
    res.json(await listDangerZones(deps, parseInput(DangerZonesQuery, req.query, 'query')));
  });
  return router;
}
