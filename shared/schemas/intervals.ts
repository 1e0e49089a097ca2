import { z } from 'zod';
import { DateRangeQuery, SiteRef, Timestamp } from './common.ts';
import { IncidentStatus } from './incidents.ts';

/**
 * The response intervals (issue #47): for every incident, when it was created, first offered to a
 * responder, accepted, when the responder set off (en route) and arrived (on scene), and when it
 * was resolved; per group (day, site, partner, responder), the median and 90th percentile of each
 * interval. NFPA 1710's intervals: call processing, turnout, travel, and their total.
 */
export const INTERVALS = ['call_processing', 'offer_to_accept', 'turnout', 'travel', 'total'] as const;
export type IntervalName = (typeof INTERVALS)[number];

/** What each interval runs from and to (docs/operations.md, "The response intervals"). */
export const INTERVAL_SPANS: Record<IntervalName, { from: MilestoneName; to: MilestoneName; words: string }> = {
  call_processing: { from: 'created_at', to: 'first_offer_at', words: 'Call processing: created to the first offer' },
  offer_to_accept: { from: 'first_offer_at', to: 'accepted_at', words: 'First offer to accepted' },
  turnout: { from: 'accepted_at', to: 'en_route_at', words: 'Turnout: accepted to en route' },
  travel: { from: 'en_route_at', to: 'on_scene_at', words: 'Travel: en route to on scene' },
  total: { from: 'created_at', to: 'on_scene_at', words: 'Total: created to on scene' },
};

export const MILESTONES = ['created_at', 'first_offer_at', 'accepted_at', 'en_route_at', 'on_scene_at', 'resolved_at'] as const;
export type MilestoneName = (typeof MILESTONES)[number];

/**
 * How the staff report groups incidents: `area` is the first (by name) of the service areas a
 * network admin drew that holds the incident's location, or "No area" (server/incidents/intervals.ts,
 * `GROUPINGS`). Partners group by their own sites: the areas are Tsaro's.
 */
export const STAFF_GROUPINGS = ['day', 'site', 'area', 'organization', 'responder'] as const;
export const PARTNER_GROUPINGS = ['day', 'site', 'responder'] as const;
export type Grouping = (typeof STAFF_GROUPINGS)[number];

const IntervalFigure = z
  .object({
    count: z.int().meta({ description: 'Incidents that reached both ends of the interval' }),
    p50_s: z.number().nullable().meta({ description: 'Median, in seconds to a tenth; null when count is 0' }),
    p90_s: z.number().nullable().meta({ description: '90th percentile, in seconds to a tenth; null when count is 0' }),
  })
  .meta({
    id: 'IntervalFigure',
    description:
      'Exact over every incident of the group (no sampling, no histogram): the values sorted, the percentile interpolated linearly between the two nearest ranks (rank p × (count − 1), counted from 0), as PostgreSQL\'s percentile_cont. One incident: its own value for both',
  });

export const IntervalGroup = z
  .object({
    key: z.string().meta({ description: 'The day (YYYY-MM-DD, UTC), site_id, organization_id or responder_id; `none` for incidents with no site or no responder; `all` for the overall row' }),
    label: z.string().meta({ description: 'The day, or the name of the site, partner or responder (as they wrote it: show it as text)' }),
    incidents: z.int().meta({ description: 'Incidents created in the window in this group' }),
    call_processing: IntervalFigure,
    offer_to_accept: IntervalFigure,
    turnout: IntervalFigure,
    travel: IntervalFigure,
    total: IntervalFigure,
  })
  .meta({ id: 'IntervalGroup' });
export type IntervalGroup = z.infer<typeof IntervalGroup>;

export const IntervalReport = z
  .object({
    from_date: Timestamp,
    to_date: Timestamp,
    group_by: z.enum(STAFF_GROUPINGS),
    incidents: z.int().meta({ description: 'Incidents counted (drills left out)' }),
    truncated: z.boolean().meta({ description: `true when the window held more than the report reads (the oldest ${50_000} are counted): narrow it` }),
    overall: IntervalGroup,
    groups: z.array(IntervalGroup).meta({ description: 'In the order of their key (days oldest first); `none` last' }),
  })
  .meta({ id: 'IntervalReport' });
export type IntervalReport = z.infer<typeof IntervalReport>;

export const IncidentIntervals = z
  .object({
    incident_id: z.string(),
    organization_id: z.string(),
    organization_name: z.string(),
    site_id: z.string().nullable(),
    site_name: z.string().nullable(),
    responder_id: z.string().nullable().meta({ description: 'The responder who holds (or held, at the end) the incident' }),
    responder_name: z.string().nullable(),
    status: IncidentStatus,
    created_at: Timestamp,
    first_offer_at: Timestamp.nullable().meta({ description: 'The first offer to any responder (the engine\'s or a controller\'s)' }),
    accepted_at: Timestamp.nullable().meta({ description: 'The first acceptance' }),
    en_route_at: Timestamp.nullable().meta({ description: 'The first time a responder set off (status responding)' }),
    on_scene_at: Timestamp.nullable().meta({ description: 'The first arrival' }),
    resolved_at: Timestamp.nullable(),
    call_processing_s: z.number().nullable(),
    offer_to_accept_s: z.number().nullable(),
    turnout_s: z.number().nullable(),
    travel_s: z.number().nullable(),
    total_s: z.number().nullable(),
  })
  .meta({ id: 'IncidentIntervals', description: 'One incident\'s times; each interval in seconds to a tenth, null until both its ends happened' });
export type IncidentIntervals = z.infer<typeof IncidentIntervals>;

const Format = z.enum(['json', 'csv']).default('json').meta({ description: '`csv`: the same figures as a CSV file (text/csv, UTF-8 with a byte-order mark), one row per group, the overall row first' });

/** At most this many days in one report: the figures are exact, read from every incident of the window. */
export const INTERVAL_WINDOW_DAYS = 92;

const windowText = `Created at or after \`from_date\` and before \`to_date\` (default: the 30 days to now), at most ${INTERVAL_WINDOW_DAYS} days`;
export const PartnerIntervalQuery = DateRangeQuery.extend({
  group_by: z.enum(PARTNER_GROUPINGS).default('day').meta({ description: 'Per day (UTC), site or responder' }),
  site_id: SiteRef.optional().meta({ description: 'Only the incidents of this site' }),
  format: Format,
}).meta({ description: windowText });

export const StaffIntervalQuery = DateRangeQuery.extend({
  group_by: z.enum(STAFF_GROUPINGS).default('day').meta({ description: 'Per day (UTC), site, service area (the first by name holding the incident), partner (organization) or responder' }),
  organization_id: z.string().min(1).max(100).optional().meta({ description: "Only one partner's incidents" }),
  format: Format,
});
export const StaffIncidentIntervalsQuery = DateRangeQuery.extend({
  organization_id: z.string().min(1).max(100).optional(),
  format: z.enum(['json', 'csv']).default('json').meta({ description: '`csv`: one row per incident' }),
});
