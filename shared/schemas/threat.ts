import { z } from 'zod';
import { DateRangeQuery, PageQuery, pageFields, queryNumber, Timestamp, TimestampInput } from './common.ts';

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
  'Contains data from the UCDP Georeferenced Event Dataset and the UCDP Candidate Events Dataset (Uppsala Conflict Data Program, ' +
  'https://ucdp.uu.se), licensed CC BY 4.0. Subset and column-reduced; not endorsed by UCDP. Candidate events are provisional.';

/** The publications UCDP asks every user of its data to cite: GED always, each shipped GED release, and the Candidate dataset. */
export const CITATIONS = [
  'Sundberg, Ralph and Erik Melander (2013). Introducing the UCDP Georeferenced Event Dataset. Journal of Peace Research 50(4): 523-532.',
  'Pettersson, Therése and Magnus Öberg (2020). Organized violence, 1989-2019. Journal of Peace Research 57(4). (GED 20.1)',
  'Davies, Shawn, Therése Pettersson and Magnus Öberg (2022). Organized violence 1989-2021 and drone warfare. Journal of Peace Research 59(4). (GED 22.1)',
  'Davies, Shawn, Therése Pettersson and Magnus Öberg (2023). Organized violence 1989-2022 and the return of conflicts between states? Journal of Peace Research 60(4). (GED 23.1)',
  'Davies, S., Pettersson, T., Sollenberg, M. and Öberg, M. (2025). Organized violence 1989-2024, and the challenges of identifying civilian victims. Journal of Peace Research 62(4). (GED 25.1)',
  'Hegre, H., Croicu, M., Eck, K. and Högbladh, S. (2020). Introducing the UCDP Candidate Events Dataset. Research & Politics 7(3). (Candidate Events 26.0.1, 26.0.2)',
] as const;

/** Where an answer's events came from: final UCDP GED, provisional UCDP Candidate events, ACLED (operator-imported), community reports, the service's verified incidents. */
export const THREAT_FEEDS = ['ucdp-ged', 'ucdp-candidate', 'acled', 'community', 'verified'] as const;
export const ThreatFeed = z.enum(THREAT_FEEDS).meta({
  id: 'ThreatDataSource',
  description:
    '`ucdp-ged` UCDP GED (final releases), `ucdp-candidate` UCDP Candidate events (provisional, half weight), `acled` ACLED (imported by the operator), ' +
    '`community` community reports, `verified` the service\'s own verified incidents',
});

const Day = z.iso.date().meta({ example: '2026-02-28' });

export const DataCurrency = z
  .object({
    through: Day.nullable().meta({
      description:
        'Day of the newest event that could have counted for this answer: in the place\'s country or within the radius (a box: in the 1° squares it touches; ' +
        'a route: the least current checkpoint). Null when no data covers the place. A recent `through` with nothing nearby means quiet; an old one means the data stops there.',
    }),
    sources: z.array(ThreatFeed).meta({ description: 'The sources of that data' }),
    country: z.string().nullable().meta({ description: 'ISO 3166-1 alpha-2 country of the point (null for a box, a route or the whole list)', example: 'NG' }),
  })
  .meta({ id: 'ThreatDataCurrency', description: 'How current the data behind the answer is. Per-country periods and gaps: `GET /threat/coverage`.' });

const latitude = (name: string) =>
  queryNumber(z.number().min(-90).max(90)).meta({ description: `${name}: WGS 84 decimal degrees (-90 to 90), in Sub-Saharan Africa`, example: 9.0765 });
const longitude = (name: string) =>
  queryNumber(z.number().min(-180).max(180)).meta({ description: `${name}: WGS 84 decimal degrees (-180 to 180), in Sub-Saharan Africa`, example: 7.3986 });
const radius = (fallback: number) =>
  queryNumber(z.number().gt(0).max(100)).default(fallback).meta({ description: `Radius in km, over 0 and at most 100 (default ${fallback})` });

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
    data: DataCurrency,
  })
  .meta({ id: 'SafetyScore' });

export const RouteSafetyQuery = z.object({
  from_lat: latitude('Start latitude'),
  from_lng: longitude('Start longitude'),
  to_lat: latitude('End latitude'),
  to_lng: longitude('End longitude'),
  checkpoints: queryNumber(z.int().min(2).max(20)).default(10).meta({ description: 'Points scored along the great circle, both ends included: 2 to 20 (default 10)' }),
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
    data: DataCurrency,
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
    data: DataCurrency,
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
  days: queryNumber(z.int().min(1).max(365)).default(90).meta({ description: 'Lookback in days, 1 to 365 (default 90), counted back from `until`' }),
  until: TimestampInput.optional().meta({
    description:
      'The last instant of the window (default now; at most a minute ahead): with `until` the events of its day and the `days` - 1 before it, scored as of then, so a map can show the data\'s own last year (`data.through`)',
    example: '2026-02-28T23:59:59Z',
  }),
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
    data: DataCurrency,
  })
  .meta({ id: 'HeatmapResponse' });

export const DangerZonesQuery = PageQuery.extend({
  incident_type: ThreatType.optional().meta({ description: 'Only zones with events of this type' }),
  severity_min: queryNumber(z.int().min(1).max(10)).optional().meta({ description: 'Only zones of at least this severity (1 to 10)' }),
  latitude: queryNumber(z.number().min(-90).max(90)).optional().meta({ description: 'With `longitude`: only zones whose centre is within `radius_km`' }),
  longitude: queryNumber(z.number().min(-180).max(180)).optional(),
  radius_km: queryNumber(z.number().gt(0).max(2000)).default(50).meta({ description: 'With `latitude` and `longitude`: km, default 50' }),
  from_date: DateRangeQuery.shape.from_date.meta({ description: 'Only zones whose last incident is at or after this instant; a date (YYYY-MM-DD) means the start of that day, UTC' }),
  to_date: DateRangeQuery.shape.to_date.meta({ description: 'Only zones whose last incident is before this instant; a date (YYYY-MM-DD) means up to the end of that day, UTC' }),
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
export const DangerZonePage = z
  .object({
    ...pageFields(DangerZone),
    data: DataCurrency.meta({ description: 'The whole store, or with `latitude` and `longitude` that point' }),
  })
  .meta({ id: 'DangerZonePage', description: 'One page of zones, most severe first' });

const Gap = z.object({ from: Day, to: Day }).meta({ id: 'ThreatDataGap', description: 'Whole calendar years with no event' });

export const ThreatCoverage = z
  .object({
    countries: z.array(
      z.object({
        country: z.string().meta({ description: 'ISO 3166-1 alpha-2, by the point of each event', example: 'NG' }),
        through: Day.meta({ description: 'Newest event of any source' }),
        sources: z.array(
          z.object({
            source: ThreatFeed,
            from: Day,
            through: Day,
            events: z.int(),
            events_by_year: z.record(z.string(), z.int()).meta({ description: 'Events per calendar year', example: { '2024': 297, '2026': 302 } }),
            gaps: z.array(Gap).meta({ description: 'Years between `from` and `through` without an event of this source' }),
          }),
        ),
        gaps: z.array(Gap).meta({ description: 'Years no source covers (Nigeria: 2025)' }),
        notes: z.array(z.string()).meta({ description: 'What the shipped data says about this country: partial years, samples, provisional months' }),
      }),
    ),
    attribution: z.string(),
    citations: z.array(z.string()),
  })
  .meta({ id: 'ThreatCoverage' });
