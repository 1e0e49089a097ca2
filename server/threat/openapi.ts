import type { ZodOpenApiPathsObject } from 'zod-openapi';
import {
  ATTRIBUTION,
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
} from '../../shared/schemas/threat.ts';
import { errors, ok } from '../docs/responses.ts';

const tags = ['Threat intelligence'];
const common = `Scope \`analytics:read\`. Coverage: Sub-Saharan Africa (a point outside is a 400 naming the field). ${ATTRIBUTION}`;

export const THREAT_TAG_DESCRIPTION =
  'Scores and zones from one model over public event data (UCDP GED; ACLED where the operator imports a licensed copy), ' +
  'community reports (half weight, times their confidence) and the service\'s own verified incidents. The model, its ' +
  `weights and the data's gaps are in the README ("How the scores are made"). Deterministic for the same data and day. ${ATTRIBUTION}`;

export const threatPaths: ZodOpenApiPathsObject = {
  '/safety/score': {
    get: {
      operationId: 'getSafetyScore',
      tags,
      summary: 'Safety score of a point',
      description: `${common} 0-100 and a level: 70-100 safe, 50-69 moderate, 30-49 high risk, 0-29 critical.`,
      requestParams: { query: SafetyScoreQuery },
      responses: { ...ok(200, 'The score', SafetyScore), ...errors() },
    },
  },
  '/safety/route': {
    get: {
      operationId: 'getRouteSafety',
      tags,
      summary: 'Safety along a route',
      description: `${common} Checkpoints are evenly spaced on the great circle, both ends included; \`alternative_needed\` when the lowest scores under 30.`,
      requestParams: { query: RouteSafetyQuery },
      responses: { ...ok(200, 'The route, checkpoint by checkpoint', RouteSafety), ...errors() },
    },
  },
  '/danger-zones/analytics': {
    get: {
      operationId: 'getDangerAnalytics',
      tags,
      summary: 'Incident analytics around a point',
      description: common,
      requestParams: { query: DangerAnalyticsQuery },
      responses: { ...ok(200, 'Counts, level and trend', DangerAnalytics), ...errors() },
    },
  },
  '/danger-zones/heatmap': {
    get: {
      operationId: 'getHeatmap',
      tags,
      summary: 'Heatmap of a box',
      description: `Scope \`analytics:read\`. Events of the last \`days\` days in the box, aggregated on a grid of at most 70 x 70 cells (at most 4,900 points), heaviest first. ${ATTRIBUTION}`,
      requestParams: { query: HeatmapQuery },
      responses: { ...ok(200, 'Aggregated points', Heatmap), ...errors() },
    },
  },
  '/danger-zones': {
    get: {
      operationId: 'listDangerZones',
      tags,
      summary: 'List danger zones',
      description:
        'Scope `analytics:read`. Clusters of the events of the last ten years (three or more within 5 km), named after the place most of ' +
        'their events name, with level and severity from the same scoring function at the zone; clusters that score `safe` are not listed. ' +
        `Most severe first. \`from_date\`/\`to_date\` filter on \`last_incident_at\`. ${ATTRIBUTION}`,
      requestParams: { query: DangerZonesQuery },
      responses: { ...ok(200, 'One page of zones', DangerZonePage), ...errors() },
    },
  },
};
