import { z } from 'zod';
import { DateRangeQuery, PageQuery, paginated, Timestamp } from './common.ts';

/** One taxonomy of threats for every source (public data, community reports, verified incidents). */
export const THREAT_TYPES = [
  'armed_conflict',
  'communal_violence',
  'violence_against_civilians',
  'kidnapping',
  'armed_robbery',
  'protest_or_riot',
  'crime',
  'road_incident',
  'other',
] as const;
export const ThreatType = z.enum(THREAT_TYPES).meta({ id: 'ThreatType', description: 'Kind of threat, one taxonomy for every source' });

export const ATTRIBUTION =
  'Contains data from the UCDP Georeferenced Event Dataset (Uppsala Conflict Data Program, https://ucdp.uu.se), licensed CC BY 4.0. ' +
  'Subset and column-reduced; not endorsed by UCDP. Sundberg & Melander (2013), Journal of Peace Research 50(4).';

/**
 * A decimal number in a query string. `z.coerce.number()` would read an empty value as 0 (a
 * real place, in the Gulf of Guinea) and accept `0x5`: this takes only decimal text.
 */
const decimal = (range: z.ZodNumber) =>
  z
    .string()
    .regex(/^\s*[-+]?(\d+(\.\d*)?|\.\d+)\s*$/, 'expected a decimal number')
    .transform(Number)
    .pipe(range);
const latitude = (name: string) =>
  decimal(z.number().min(-90).max(90)).meta({ description: `${name}: WGS 84 decimal degrees (-90 to 90), in Sub-Saharan Africa`, example: '9.0765' });
const longitude = (name: string) =>
  decimal(z.number().min(-180).max(180)).meta({ description: `${name}: WGS 84 decimal degrees (-180 to 180), in Sub-Saharan Africa`, example: '7.3986' });
const radius = (fallback: number) =>
  decimal(z.number().gt(0).max(100)).default(fallback).meta({ description: `Radius in km, over 0 and at most 100 (default ${fallback})` });

export const Level = z.enum(['safe', 'moderate', 'high_risk', 'critical']).meta({
  id: 'ThreatLevel',
  description: '70-100 `safe`, 50-69 `moderate`, 30-49 `high_risk`, 0-29 `critical`',
});
export const Color = z.enum(['green', 'yellow', 'orange', 'red']).meta({ id: 'ThreatColor' });
export const Trend = z.enum(['increasing', 'decreasing', 'stable']).meta({
  id: 'ThreatTrend',
  description: 'Events of the last 90 days against the 90 before: `increasing` with at least 2 and 25% more, `decreasing` with at least 2 and 25% fewer',
});
const Score = z.int().min(0).max(100).meta({ description: '0 (avoid) to 100 (nothing recorded)' });

export const SafetyScoreQuery = z.object({
  latitude: latitude('Latitude'),
  longitude: longitude('Longitude'),
  radius_km: radius(2),
});

export const SafetyScore = z
  .object({
    location: z.object({ latitude: z.number(), longitude: z.number() }),
    radius_km: z.number(),
    score: Score,
    level: Level,
    color: Color,
    breakdown: z.object({
      recent_incidents_7d: z.int(),
      recent_incidents_30d: z.int(),
      total_incidents: z.int().meta({ description: 'Every recorded event within the radius, of any age' }),
      trend: Trend,
    }),
    timestamp: Timestamp,
  })
  .meta({ id: 'SafetyScore' });

export const RouteSafetyQuery = z.object({
  from_lat: latitude('Start latitude'),
  from_lng: longitude('Start longitude'),
  to_lat: latitude('End latitude'),
  to_lng: longitude('End longitude'),
  checkpoints: z.coerce.number().int().min(2).max(20).default(10).meta({ description: 'Points scored along the great circle, both ends included: 2 to 20 (default 10)' }),
});

export const RouteSafety = z
  .object({
    route_safety_score: z.int().min(0).max(100).meta({ description: 'The mean of the checkpoint scores and the lowest one, weighted equally' }),
    lowest_safety_score: Score,
    distance_km: z.number().meta({ description: 'Great-circle distance of the route' }),
    checkpoints: z.array(
      z.object({
        checkpoint: z.int().meta({ description: '1 is the start' }),
        location: z.object({ lat: z.number(), lng: z.number() }),
        radius_km: z.number().meta({ description: 'Radius scored around the checkpoint: half the spacing, 2 to 25 km (the circles cover the route while checkpoints are at most 50 km apart)' }),
        safety_score: Score,
        level: Level,
      }),
    ),
    danger_zones: z
      .array(z.object({ checkpoint: z.int(), score: Score, warning: z.string() }))
      .meta({ description: 'Checkpoints scoring under 50 (`high_risk` or `critical`)' }),
    recommendation: z.string(),
    alternative_needed: z.boolean().meta({ description: 'True when the lowest checkpoint scores under 30' }),
  })
  .meta({ id: 'RouteSafety' });

export const DangerAnalyticsQuery = z.object({
  latitude: latitude('Latitude'),
  longitude: longitude('Longitude'),
  radius_km: radius(5),
});

export const DangerAnalytics = z
  .object({
    location: z.object({ latitude: z.number(), longitude: z.number() }),
    radius_km: z.number(),
    analytics: z.object({
      danger_level: Level,
      safety_score: Score,
      total_incidents: z.int(),
      last_7days: z.int(),
      last_30days: z.int(),
      last_90days: z.int(),
      top_incident_types: z.array(ThreatType).meta({ description: 'At most 3, most frequent first' }),
      trend: Trend,
      last_incident_at: Timestamp.nullable(),
    }),
  })
  .meta({ id: 'DangerAnalytics' });

const BOUNDS = /^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$/;

export const HeatmapQuery = z.object({
  bounds: z
    .string()
    .transform((text, ctx) => {
      const match = BOUNDS.exec(text);
      if (!match) {
        ctx.addIssue({ code: 'custom', message: 'expected lat1,lng1,lat2,lng2 (four decimal numbers)' });
        return z.NEVER;
      }
      const [lat1, lng1, lat2, lng2] = match.slice(1).map(Number) as [number, number, number, number];
      if (Math.abs(lat1) > 90 || Math.abs(lat2) > 90) ctx.addIssue({ code: 'custom', message: 'latitudes must be between -90 and 90' });
      else if (Math.abs(lng1) > 180 || Math.abs(lng2) > 180) ctx.addIssue({ code: 'custom', message: 'longitudes must be between -180 and 180' });
      else if (lat1 === lat2 || lng1 === lng2) ctx.addIssue({ code: 'custom', message: 'the box has no area: the two corners share a latitude or a longitude' });
      else return { minLat: Math.min(lat1, lat2), minLng: Math.min(lng1, lng2), maxLat: Math.max(lat1, lat2), maxLng: Math.max(lng1, lng2) };
      return z.NEVER;
    })
    .meta({ description: 'Two opposite corners: `lat1,lng1,lat2,lng2`', example: '4.0,2.6,14.0,14.7' }),
  days: z.coerce.number().int().min(1).max(365).default(90).meta({ description: 'Lookback in days, 1 to 365 (default 90)' }),
});

export const Heatmap = z
  .object({
    count: z.int().meta({ description: 'Number of points in `heatmap` (at most 5,000)' }),
    incident_count: z.int().meta({ description: 'Events aggregated into the points' }),
    heatmap: z.array(
      z.object({
        lat: z.number(),
        lng: z.number(),
        weight: z.number().min(0).max(1).meta({ description: "The cell's threat over the heaviest cell's" }),
        type: ThreatType.meta({ description: 'Most frequent type in the cell' }),
      }),
    ),
  })
  .meta({ id: 'HeatmapResponse' });

export const DangerZonesQuery = PageQuery.extend({
  incident_type: ThreatType.optional().meta({ description: 'Only zones with events of this type' }),
  severity_min: z.coerce.number().int().min(1).max(10).optional().meta({ description: 'Only zones of at least this severity (1 to 10)' }),
  latitude: decimal(z.number().min(-90).max(90)).optional().meta({ description: 'With `longitude`: only zones whose centre is within `radius_km`' }),
  longitude: decimal(z.number().min(-180).max(180)).optional(),
  radius_km: decimal(z.number().gt(0).max(2000)).default(50).meta({ description: 'With `latitude` and `longitude`: km, default 50' }),
  from_date: DateRangeQuery.shape.from_date.meta({ description: 'Only zones whose last incident is at or after this instant' }),
  to_date: DateRangeQuery.shape.to_date.meta({ description: 'Only zones whose last incident is before this instant' }),
});

export const DangerZone = z
  .object({
    zone_id: z.string().meta({ example: 'zone_5f1c0a9be2d34c71' }),
    name: z.string().meta({ description: 'The place most of its events name', example: 'Maiduguri town, Borno state' }),
    center: z.object({ latitude: z.number(), longitude: z.number() }),
    radius_km: z.number(),
    severity: z.int().min(1).max(10),
    level: Level,
    incident_count: z.int(),
    incident_types: z.array(ThreatType),
    last_incident_at: Timestamp,
  })
  .meta({ id: 'DangerZone' });
export const DangerZonePage = paginated(DangerZone, 'DangerZonePage');
