import {
  ATTRIBUTION,
  CITATIONS,
  DangerAnalytics,
  DangerAnalyticsQuery,
  DangerZonePage,
  DangerZonesQuery,
  Heatmap,
  HeatmapQuery,
  RouteSafety,
  RouteSafetyQuery,
  SafetyScore,
  SafetyScoreQuery,
  ThreatCoverage,
} from '../../shared/schemas/threat.ts';
import { errors, ok } from '../http/responses.ts';
import { routeFor, routerOf } from '../http/define-route.ts';
import type { RouteDeps } from '../route-deps.ts';
import type { ThreatEngine } from './engine.ts';
import { THREAT_COMMON } from './openapi.ts';
import { dangerAnalytics, heatmapData, listDangerZones, routeSafety, safetyScore, threatCoverage } from './service.ts';

type ThreatRouteDeps = RouteDeps & { threat: ThreatEngine };

const route = routeFor<ThreatRouteDeps>();
const tags = ['Threat intelligence'];
const access = 'analytics:read';

/**
 * Threat intelligence: answered from the in-memory index (no database round trip). The data is
 * the same for every organization, so there is nothing tenant-specific here beyond the key's
 * `analytics:read` scope and rate limit.
 */
export const threatRouteList = [
  route({
    method: 'get',
    path: '/safety/score',
    access,
    query: SafetyScoreQuery,
    operationId: 'getSafetyScore',
    tags,
    summary: 'Safety score of a point',
    description: `${THREAT_COMMON} 0-100 and a level: 70-100 safe, 50-69 moderate, 30-49 high risk, 0-29 critical.`,
    responses: { ...ok(200, 'The score', SafetyScore), ...errors() },
    handler({ query }, _req, res, deps) {
      res.json(safetyScore(deps, query));
    },
  }),
  route({
    method: 'get',
    path: '/safety/route',
    access,
    query: RouteSafetyQuery,
    operationId: 'getRouteSafety',
    tags,
    summary: 'Safety along a route',
    description: `${THREAT_COMMON} Checkpoints are evenly spaced on the great circle, both ends included; \`alternative_needed\` when the lowest scores under 30.`,
    responses: { ...ok(200, 'The route, checkpoint by checkpoint', RouteSafety), ...errors() },
    handler({ query }, _req, res, deps) {
      res.json(routeSafety(deps, query));
    },
  }),
  route({
    method: 'get',
    path: '/danger-zones/analytics',
    access,
    query: DangerAnalyticsQuery,
    operationId: 'getDangerAnalytics',
    tags,
    summary: 'Incident analytics around a point',
    description: THREAT_COMMON,
    responses: { ...ok(200, 'Counts, level and trend', DangerAnalytics), ...errors() },
    handler({ query }, _req, res, deps) {
      res.json(dangerAnalytics(deps, query));
    },
  }),
  route({
    method: 'get',
    path: '/danger-zones/heatmap',
    access,
    query: HeatmapQuery,
    operationId: 'getHeatmap',
    tags,
    summary: 'Heatmap of a box',
    description: `Events of the last \`days\` days in the box, aggregated on a grid of at most 70 x 70 cells (at most 4,900 points), heaviest first. ${ATTRIBUTION}`,
    responses: { ...ok(200, 'Aggregated points', Heatmap), ...errors() },
    handler({ query }, _req, res, deps) {
      res.json(heatmapData(deps, query));
    },
  }),
  route({
    method: 'get',
    path: '/danger-zones',
    access,
    query: DangerZonesQuery,
    operationId: 'listDangerZones',
    tags,
    summary: 'List danger zones',
    description:
      'Clusters of the events of the last ten years (three or more within 5 km), named after the place most of ' +
      'their events name, with level and severity from the same scoring function at the zone; clusters that score `safe` are not listed. ' +
      `Most severe first. \`from_date\`/\`to_date\` filter on \`last_incident_at\`. ${ATTRIBUTION}`,
    responses: { ...ok(200, 'One page of zones', DangerZonePage), ...errors() },
    async handler({ query }, _req, res, deps) {
      res.json(await listDangerZones(deps, query));
    },
  }),
  route({
    method: 'get',
    path: '/threat/coverage',
    access,
    operationId: 'getThreatCoverage',
    tags,
    summary: 'What the threat data covers, per country',
    description:
      'Per country (by the point of each event): the period each source covers, its events per calendar year, the ' +
      'whole years inside that period with no event (`gaps`; Nigeria: 2025), and notes on partial or sampled data. ' +
      `${ATTRIBUTION} Cite: ${CITATIONS.join(' ')}`,
    responses: { ...ok(200, 'Coverage by country and source', ThreatCoverage), ...errors() },
    handler(_input, _req, res, deps) {
      res.json(threatCoverage(deps));
    },
  }),
];

export const threatRoutes = (deps: ThreatRouteDeps) => routerOf(threatRouteList, deps, deps);
