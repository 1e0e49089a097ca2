import type { ExpressionBuilder, SelectQueryBuilder } from 'kysely';
import { toCsv, type Cell } from '../../shared/csv.ts';
import { DAY_MS } from '../../shared/time.ts';
import {
  INTERVALS,
  INTERVAL_SPANS,
  INTERVAL_WINDOW_DAYS,
  MILESTONES,
  type Grouping,
  type IncidentIntervals,
  type IntervalGroup,
  type IntervalReport,
} from '../../shared/schemas/intervals.ts';
import type { IncidentStatus } from '../../shared/schemas/incidents.ts';
import type { Database } from '../db/schema.ts';
import { metresOutside } from '../duty/area-geometry.ts';
import type { AreaShape } from '../../shared/schemas/duty.ts';
import { badRequest } from '../http/errors.ts';
import { utcInstant } from '../http/pagination.ts';

/**
 * The response intervals (issue #47), derived from what every incident already records: its
 * creation, its offers (the earliest `first_offered_at`, migration 0053) and its timeline (the
 * first `assigned`, `responding` and `on_scene` entries: the timeline is only ever appended to,
 * so a reassignment later does not move them), and its resolution. Nothing new is stamped on
 * the incident. The partner's report (GET /incidents/intervals) and the staff's
 * (GET /v1/staff/reports/intervals) read the same rows, through their own stores, and share
 * everything here.
 */

/** At most this many incidents are read for one report (the oldest of the window); `truncated` says so. */
export const INTERVAL_ROW_CAP = 50_000;

export interface IntervalRow {
  incident_id: string;
  organization_id: string;
  organization_name: string;
  site_id: string | null;
  site_name: string | null;
  responder_id: string | null;
  responder_name: string | null;
  status: string;
  latitude: number;
  longitude: number;
  created_at: string;
  first_offer_at: string | null;
  accepted_at: string | null;
  en_route_at: string | null;
  on_scene_at: string | null;
  resolved_at: string | null;
}

const firstEntry = (event: string) => (eb: ExpressionBuilder<Database, 'incidents'>) =>
  eb
    .selectFrom('incident_timeline')
    .select((t) => t.fn.min('incident_timeline.timestamp').as('at'))
    .whereRef('incident_timeline.incident_id', '=', 'incidents.incident_id')
    .where('incident_timeline.event', '=', event);

/**
 * The milestones of the incidents a store's query reaches (its tenant filter, or the operations
 * centre's read across organizations), created in the window, drills left out, oldest first.
 * Each milestone is a correlated read of the incident's own offers or timeline rows, found by
 * their primary keys' leading `incident_id`.
 */
export function intervalRowsOf(base: SelectQueryBuilder<Database, 'incidents', object>, window: { from: string; to: string }) {
  return base
    .innerJoin('organizations', 'organizations.organization_id', 'incidents.organization_id')
    .leftJoin('sites', 'sites.site_id', 'incidents.site_id')
    .select([
      'incidents.incident_id',
      'incidents.organization_id',
      'organizations.name as organization_name',
      'incidents.site_id',
      'sites.name as site_name',
      'incidents.responder_id',
      'incidents.responder_name',
      'incidents.status',
      'incidents.latitude',
      'incidents.longitude',
      'incidents.created_at',
      'incidents.resolved_at',
    ])
    .select((eb) => [
      eb
        .selectFrom('dispatch_offers')
        .select((o) => o.fn.min(o.fn.coalesce('dispatch_offers.first_offered_at', 'dispatch_offers.offered_at')).as('at'))
        .whereRef('dispatch_offers.incident_id', '=', 'incidents.incident_id')
        .as('first_offer_at'),
      firstEntry('assigned')(eb).as('accepted_at'),
      firstEntry('responding')(eb).as('en_route_at'),
      firstEntry('on_scene')(eb).as('on_scene_at'),
    ])
    .where('incidents.created_at', '>=', window.from)
    .where('incidents.created_at', '<', window.to)
    .where('incidents.is_drill', '=', 0)
    .orderBy('incidents.created_at')
    .orderBy('incidents.incident_id')
    .limit(INTERVAL_ROW_CAP + 1);
}

/** The window asked for: `to_date` default now, `from_date` default 30 days before it; at most INTERVAL_WINDOW_DAYS (a 400 naming from_date). */
export function intervalWindow(query: { from_date?: string; to_date?: string }, now: Date): { from: string; to: string } {
  const to = utcInstant(query.to_date) ?? now.toISOString();
  const from = utcInstant(query.from_date) ?? new Date(Date.parse(to) - 30 * DAY_MS).toISOString();
  if (Date.parse(from) >= Date.parse(to)) throw badRequest('from_date: must be before to_date');
  if (Date.parse(to) - Date.parse(from) > INTERVAL_WINDOW_DAYS * DAY_MS) throw badRequest(`from_date: the window is at most ${INTERVAL_WINDOW_DAYS} days (these figures are exact, read from every incident)`);
  return { from, to };
}

const tenths = (ms: number) => Math.round(ms / 100) / 10;

/** Seconds (to a tenth) from one milestone to another; null until both happened (or if the clock ran backwards). */
function span(from: string | null, to: string | null): number | null {
  if (!from || !to) return null;
  const ms = Date.parse(to) - Date.parse(from);
  return ms < 0 ? null : tenths(ms);
}

const iso = (value: string | null) => (value ? new Date(value).toISOString() : null);

/** One incident's times and intervals. */
export function incidentIntervals(row: IntervalRow): IncidentIntervals {
  const created = iso(row.created_at)!;
  const [firstOffer, accepted, enRoute, onScene] = [iso(row.first_offer_at), iso(row.accepted_at), iso(row.en_route_at), iso(row.on_scene_at)];
  return {
    incident_id: row.incident_id,
    organization_id: row.organization_id,
    organization_name: row.organization_name,
    site_id: row.site_id,
    site_name: row.site_name,
    responder_id: row.responder_id,
    responder_name: row.responder_name,
    status: row.status as IncidentStatus,
    created_at: created,
    first_offer_at: firstOffer,
    accepted_at: accepted,
    en_route_at: enRoute,
    on_scene_at: onScene,
    resolved_at: iso(row.resolved_at),
    call_processing_s: span(created, firstOffer),
    offer_to_accept_s: span(firstOffer, accepted),
    turnout_s: span(accepted, enRoute),
    travel_s: span(enRoute, onScene),
    total_s: span(created, onScene),
  };
}

/**
 * The p-th percentile (0 to 1) of `values`, exact: sorted, then interpolated linearly between the
 * two nearest ranks at p × (n − 1), counted from 0 (PostgreSQL's percentile_cont). Null for none.
 */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = p * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  const value = sorted[low]! + (sorted[high]! - sorted[low]!) * (rank - low);
  return Math.round(value * 10) / 10;
}

/** A service area a network admin drew (issue #47), as the report needs it. */
export interface ReportArea {
  area_id: string;
  name: string;
  shape: AreaShape;
}

/** The areas in the order `areaOf` tries them: by name, then id. Sorted once per report. */
const byName = (areas: readonly ReportArea[]): ReportArea[] => [...areas].sort((a, b) => a.name.localeCompare(b.name) || a.area_id.localeCompare(b.area_id));

/**
 * The area an incident happened in: the first of `areasByName` whose shape holds its location (on
 * the edge counts; no phone's allowance, the location is where the SOS was sent from), else none.
 */
function areaOf(areasByName: readonly ReportArea[], point: { latitude: number; longitude: number }): { key: string; label: string } {
  const area = areasByName.find((candidate) => metresOutside(candidate.shape, point) === 0);
  return area ? { key: area.area_id, label: area.name } : { key: 'none', label: 'No area' };
}

/** How incidents are grouped: each grouping's key and label for an incident (and its row, for where it happened; the areas by name). */
const GROUPINGS: Record<Grouping, (incident: IncidentIntervals, row: IntervalRow, areasByName: readonly ReportArea[]) => { key: string; label: string }> = {
  day: (incident) => ({ key: incident.created_at.slice(0, 10), label: incident.created_at.slice(0, 10) }),
  site: (incident) => (incident.site_id ? { key: incident.site_id, label: incident.site_name ?? incident.site_id } : { key: 'none', label: 'No site' }),
  area: (_incident, row, areasByName) => areaOf(areasByName, row),
  organization: (incident) => ({ key: incident.organization_id, label: incident.organization_name }),
  responder: (incident) => (incident.responder_id ? { key: incident.responder_id, label: incident.responder_name ?? incident.responder_id } : { key: 'none', label: 'No responder' }),
};

function groupOf(key: string, label: string, incidents: readonly IncidentIntervals[]): IntervalGroup {
  const figures = Object.fromEntries(
    INTERVALS.map((name) => {
      const values = incidents.map((incident) => incident[`${name}_s`]).filter((value): value is number => value !== null);
      return [name, { count: values.length, p50_s: percentile(values, 0.5), p90_s: percentile(values, 0.9) }];
    }),
  ) as Pick<IntervalGroup, (typeof INTERVALS)[number]>;
  return { key, label, incidents: incidents.length, ...figures };
}

/** The report over the rows a store read: the overall figures and one group per key (`areas` for grouping by area). */
export function intervalReport(rows: readonly IntervalRow[], window: { from: string; to: string }, groupBy: Grouping, areas: readonly ReportArea[] = []): IntervalReport {
  const kept = rows.slice(0, INTERVAL_ROW_CAP);
  const incidents = kept.map(incidentIntervals);
  const areasByName = byName(areas);
  const groups = new Map<string, { label: string; incidents: IncidentIntervals[] }>();
  for (const [index, incident] of incidents.entries()) {
    const { key, label } = GROUPINGS[groupBy](incident, kept[index]!, areasByName);
    const group = groups.get(key) ?? { label, incidents: [] };
    group.incidents.push(incident);
    groups.set(key, group);
  }
  const keys = [...groups.keys()].sort((a, b) => (a === 'none' ? 1 : b === 'none' ? -1 : groupBy === 'day' ? a.localeCompare(b) : groups.get(a)!.label.localeCompare(groups.get(b)!.label) || a.localeCompare(b)));
  return {
    from_date: window.from,
    to_date: window.to,
    group_by: groupBy,
    incidents: incidents.length,
    truncated: rows.length > INTERVAL_ROW_CAP,
    overall: groupOf('all', 'All', incidents),
    groups: keys.map((key) => groupOf(key, groups.get(key)!.label, groups.get(key)!.incidents)),
  };
}

/** The report as CSV: one row per group, the overall row first; each interval's count, p50 and p90 in seconds. */
export function intervalReportCsv(report: IntervalReport): string {
  const header = [report.group_by, 'key', 'incidents', ...INTERVALS.flatMap((name) => [`${name}_count`, `${name}_p50_s`, `${name}_p90_s`])];
  const row = (group: IntervalGroup): Cell[] => [group.label, group.key, group.incidents, ...INTERVALS.flatMap((name) => [group[name].count, group[name].p50_s, group[name].p90_s])];
  return toCsv(header, [row(report.overall), ...report.groups.map(row)]);
}

export const INCIDENT_INTERVAL_COLUMNS = [
  'incident_id',
  'organization_id',
  'organization_name',
  'site_id',
  'site_name',
  'responder_id',
  'responder_name',
  'status',
  ...MILESTONES,
  ...INTERVALS.map((name) => `${name}_s` as const),
] as const;

/** Every incident's times as CSV, one row each, oldest first. */
export function incidentIntervalsCsv(incidents: readonly IncidentIntervals[]): string {
  return toCsv(INCIDENT_INTERVAL_COLUMNS, incidents.map((incident) => INCIDENT_INTERVAL_COLUMNS.map((column) => incident[column])));
}

/** What each interval measures, for documents and screens. */
export const INTERVAL_WORDS = Object.fromEntries(INTERVALS.map((name) => [name, INTERVAL_SPANS[name].words])) as Record<(typeof INTERVALS)[number], string>;
