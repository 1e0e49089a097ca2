import type { z } from 'zod';
import type {
  DangerAnalytics,
  DangerAnalyticsQuery,
  DangerZonesQuery,
  Heatmap,
  HeatmapQuery,
  RouteSafety,
  RouteSafetyQuery,
  SafetyScore,
  SafetyScoreQuery,
  ThreatCoverage,
} from '../../shared/schemas/threat.ts';
import { ATTRIBUTION, CITATIONS } from '../../shared/schemas/threat.ts';
import type { Page } from '../../shared/schemas/common.ts';
import type { Clock } from '../clock.ts';
import { ApiError } from '../http/errors.ts';
import { pageOfArray } from '../db/paged.ts';
import { toPage } from '../http/pagination.ts';
import { countryAt, COVERAGE_TEXT, isCovered } from './coverage.ts';
import { coverageReport, currencyAtPoint, currencyInBox, currencyOfAll, currencyOfRoute, type DataCurrency } from './data-currency.ts';
import { dayNumber, dayText, type ThreatIndex } from './event-index.ts';
import { shippedDataNotes } from './shipped-data.ts';
import type { ThreatEngine } from './engine.ts';
import { heatmap } from './heatmap.ts';
import { assessArea, type AreaAssessment } from './model.ts';
import { greatCircleKm } from '../geo.ts';
import { greatCirclePoints } from './route.ts';
import type { DangerZone } from './zones.ts';

export interface ThreatDeps {
  threat: ThreatEngine;
  clock: Clock;
}

function requireCovered(latitude: number, longitude: number, field: string) {
  if (!isCovered(latitude, longitude)) {
    throw new ApiError(400, `${field}: the point ${latitude}, ${longitude} is outside the covered area, ${COVERAGE_TEXT}`);
  }
}

const dayInstant = (day: number | null) => (day === null ? null : `${dayText(day)}T00:00:00.000Z`);

/** How current the data is at a point: its country's newest event, or a newer one within the radius. */
const currencyAt = (index: ThreatIndex, now: Date, latitude: number, longitude: number, area: AreaAssessment): DataCurrency =>
  currencyAtPoint(index, dayNumber(now), countryAt(latitude, longitude), { lastDay: area.lastIncidentDay, feeds: area.feeds });

export function safetyScore({ threat, clock }: ThreatDeps, query: z.output<typeof SafetyScoreQuery>): z.input<typeof SafetyScore> {
  requireCovered(query.latitude, query.longitude, 'latitude');
  const now = clock.now();
  const index = threat.current();
  const area = assessArea(index, query.latitude, query.longitude, query.radius_km, now);
  return {
    location: { latitude: query.latitude, longitude: query.longitude },
    radius_km: query.radius_km,
    score: area.score,
    level: area.level,
    color: area.color,
    breakdown: { recent_incidents_7d: area.last7Days, recent_incidents_30d: area.last30Days, total_incidents: area.totalIncidents, trend: area.trend },
    timestamp: now.toISOString(),
    data: currencyAt(index, now, query.latitude, query.longitude, area),
  };
}

const RECOMMENDATIONS = {
  safe: 'Low incident history along the route. Travel with normal precautions.',
  moderate: 'Some recorded violence along the route. Travel by day, keep to main roads and check for updates before leaving.',
  high_risk: 'The route passes through an active threat area. Consider another route, or travel with security and a check-in plan.',
  critical: 'Avoid this route if possible: it passes through a critical area. Choose another route or postpone the journey.',
} as const;

function warning(area: AreaAssessment, radiusKm: number): string {
  const label = area.level === 'critical' ? 'Critical area' : 'High-risk area';
  if (!area.totalIncidents) return `${label}: heavy violence recorded within 50 km`;
  const latest = area.lastIncidentDay === null ? '' : `, latest ${dayText(area.lastIncidentDay)}`;
  const kinds = area.types.slice(0, 2).map((t) => t.replace(/_/g, ' ')).join(' and ');
  return `${label}: ${area.totalIncidents} recorded incident${area.totalIncidents === 1 ? '' : 's'} within ${radiusKm} km${latest} (${kinds})`;
}

export function routeSafety({ threat, clock }: ThreatDeps, query: z.output<typeof RouteSafetyQuery>): z.input<typeof RouteSafety> {
  requireCovered(query.from_lat, query.from_lng, 'from_lat');
  requireCovered(query.to_lat, query.to_lng, 'to_lat');
  const now = clock.now();
  const index = threat.current();
  const from = { lat: query.from_lat, lng: query.from_lng };
  const to = { lat: query.to_lat, lng: query.to_lng };
  const distanceKm = greatCircleKm(from.lat, from.lng, to.lat, to.lng);
  // Each checkpoint covers half the way to its neighbours, so together they cover the route.
  const radiusKm = Math.round(Math.min(25, Math.max(2, distanceKm / (query.checkpoints - 1) / 2)) * 10) / 10;
  const scored = greatCirclePoints(from, to, query.checkpoints).map((point, i) => {
    const area = assessArea(index, point.lat, point.lng, radiusKm, now);
    return { checkpoint: i + 1, point, area, data: currencyAt(index, now, point.lat, point.lng, area) };
  });
  const scores = scored.map((c) => c.area.score);
  const lowest = Math.min(...scores);
  const mean = scores.reduce((sum, s) => sum + s, 0) / scores.length;
  const worst = scored.find((c) => c.area.score === lowest)!;
  return {
    route_safety_score: Math.round((mean + lowest) / 2),
    lowest_safety_score: lowest,
    distance_km: Math.round(distanceKm * 10) / 10,
    checkpoints: scored.map(({ checkpoint, point, area }) => ({
      checkpoint,
      location: { lat: Math.round(point.lat * 1e6) / 1e6, lng: Math.round(point.lng * 1e6) / 1e6 },
      radius_km: radiusKm,
      safety_score: area.score,
      level: area.level,
    })),
    danger_zones: scored
      .filter((c) => c.area.score < 50)
      .map(({ checkpoint, area }) => ({ checkpoint, score: area.score, warning: warning(area, radiusKm) })),
    recommendation:
      worst.area.level === 'safe' ? RECOMMENDATIONS.safe : `${RECOMMENDATIONS[worst.area.level]} Lowest: checkpoint ${worst.checkpoint} (score ${lowest}).`,
    alternative_needed: lowest < 30,
    data: currencyOfRoute(scored.map((c) => c.data)),
  };
}

export function dangerAnalytics({ threat, clock }: ThreatDeps, query: z.output<typeof DangerAnalyticsQuery>): z.input<typeof DangerAnalytics> {
  requireCovered(query.latitude, query.longitude, 'latitude');
  const now = clock.now();
  const index = threat.current();
  const area = assessArea(index, query.latitude, query.longitude, query.radius_km, now);
  return {
    location: { latitude: query.latitude, longitude: query.longitude },
    radius_km: query.radius_km,
    analytics: {
      danger_level: area.level,
      safety_score: area.score,
      total_incidents: area.totalIncidents,
      last_7days: area.last7Days,
      last_30days: area.last30Days,
      last_90days: area.last90Days,
      top_incident_types: area.types.slice(0, 3),
      trend: area.trend,
      last_incident_at: dayInstant(area.lastIncidentDay),
    },
    data: currencyAt(index, now, query.latitude, query.longitude, area),
  };
}

/** A heatmap's window may end in the past, not more than this ahead of the clock. */
const UNTIL_AHEAD_MS = 60_000;

export function heatmapData({ threat, clock }: ThreatDeps, query: z.output<typeof HeatmapQuery>): z.input<typeof Heatmap> {
  const now = clock.now();
  const until = query.until === undefined ? now : new Date(query.until);
  if (until.getTime() - now.getTime() > UNTIL_AHEAD_MS) throw new ApiError(400, 'until: must not be in the future (at most a minute ahead)');
  const index = threat.current();
  const { points, events } = heatmap(index, query.bounds, query.days, until, query.until === undefined);
  return { count: points.length, incident_count: events, heatmap: points, data: currencyInBox(index, dayNumber(now), query.bounds) };
}

export async function listDangerZones({ threat, clock }: ThreatDeps, query: z.output<typeof DangerZonesQuery>): Promise<Page<DangerZone> & { data: DataCurrency }> {
  if ((query.latitude === undefined) !== (query.longitude === undefined)) {
    throw new ApiError(400, `${query.latitude === undefined ? 'latitude' : 'longitude'}: give latitude and longitude together`);
  }
  const from = query.from_date ? new Date(query.from_date).getTime() : -Infinity;
  const to = query.to_date ? new Date(query.to_date).getTime() : Infinity;
  const now = clock.now();
  const index = threat.current();
  const zones = (await threat.dangerZones(now)).filter((zone) => {
    if (query.incident_type && !zone.incident_types.includes(query.incident_type)) return false;
    if (query.severity_min !== undefined && zone.severity < query.severity_min) return false;
    const last = Date.parse(zone.last_incident_at);
    if (last < from || last >= to) return false;
    if (query.latitude !== undefined && query.longitude !== undefined) {
      const km = greatCircleKm(query.latitude, query.longitude, zone.center.latitude, zone.center.longitude);
      if (km > query.radius_km) return false;
    }
    return true;
  });
  let data: DataCurrency;
  if (query.latitude !== undefined && query.longitude !== undefined) {
    // The point's country only: a zone search reaches 2,000 km, too far to walk every event for a date.
    data = currencyAtPoint(index, dayNumber(now), countryAt(query.latitude, query.longitude), { lastDay: null, feeds: 0 });
  } else {
    data = currencyOfAll(index, dayNumber(now));
  }
  const page = pageOfArray(zones, 'danger_zones', query);
  return { ...toPage(page.rows, page.total, page, query.limit), data };
}

/** Per country, the period each source covers, its events per year and its gaps, with the data's attribution. */
export function threatCoverage({ threat, clock }: ThreatDeps): z.input<typeof ThreatCoverage> {
  const countries = coverageReport(threat.current(), dayNumber(clock.now()), shippedDataNotes);
  return { countries, attribution: ATTRIBUTION, citations: [...CITATIONS] };
}
