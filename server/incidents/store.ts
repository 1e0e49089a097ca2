import { CompiledQuery, sql, type Compilable } from 'kysely';
import { jsonArrayFrom as pgJsonArrayFrom } from 'kysely/helpers/postgres';
import { jsonArrayFrom as sqliteJsonArrayFrom } from 'kysely/helpers/sqlite';
import { coalescedRead } from '../db/coalesced-read.ts';
import { paramRows, preparedQuery, rowParams } from '../db/prepared.ts';
import { isPostgres, type Executor, type IncidentRow, type ResponderRow, type Tenant, type TimelineRow } from '../db/schema.ts';
import { respondersInBoxQuery, type RespondersSearch } from '../dispatch/search.ts';
import { eventsAtRevisionAfter, type PlannedEvent } from '../events/service.ts';
import { jobsForEventsOf } from '../webhooks/queue.ts';
import { tenantParams, whereTenant, whereSiteReached, reachesSite, fromTenant, narrowedToSite } from '../db/tenant.ts';
import { pagedRows, searchedPage, type ListOrder, type PageRequest } from '../db/paged.ts';
import { secondsBucket } from '../db/histogram.ts';
import { listTotal, searchWay, tallySkip, talliedGroups, talliedHistograms, tenantTally, type ListTally, type Rollup, type TallySpec } from '../db/tallies.ts';
import { matchesText, SEARCH_COUNT_CEILING, type SearchSpec, type SearchWay } from '../db/text-search.ts';
import type { Total } from '../http/pagination.ts';
import { intervalRowsOf, type IntervalRow } from './intervals.ts';

export type { Tenant };

/**
 * Inserts an incident; false when one with its idempotency_key exists already. ON CONFLICT
 * rather than catching the violation: a failed statement aborts a whole PostgreSQL transaction.
 */
export async function insertIncident(db: Executor, row: IncidentRow): Promise<boolean> {
  const result = await incidentInsert(db, row);
  return Number(result.numAffectedRows ?? 0n) === 1;
}

/** Every POST /incidents: built and compiled once (server/db/prepared.ts). */
const incidentInsert = preparedQuery((db, row: IncidentRow) =>
  db
    .insertInto('incidents')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['organization_id', 'environment', 'idempotency_key']).where('idempotency_key', 'is not', null).doNothing(),
    ),
);

/**
 * Inserts an incident and its opening timeline rows; false, and nothing written, when an
 * incident with its idempotency_key exists already. SQLite's create, where a statement is a call
 * into the process; PostgreSQL's writes all of an SOS in one statement (`insertIncidentOpenings`).
 */
export async function insertIncidentWithTimeline(db: Executor, row: IncidentRow, timeline: TimelineRow[]): Promise<boolean> {
  if (!(await insertIncident(db, row))) return false;
  await insertTimelineRows(db, timeline);
  return true;
}

/** What an SOS's opening statement writes and reads (PostgreSQL): see `insertIncidentOpenings`. */
export interface IncidentOpening {
  row: IncidentRow;
  /** The opening timeline rows, at least one. */
  timeline: TimelineRow[];
  /** The `incident.created` event and the deliveries of its cached destinations (events/service.ts, `planEvent`). */
  event: PlannedEvent;
  /** The first dispatch round's search (live incidents), read in the same statement. */
  search?: RespondersSearch;
}

export interface OpeningWritten {
  /** False, and nothing written, when an incident with its idempotency_key exists already. */
  created: boolean;
  /** Whether the event and its deliveries were written (the webhook revision still matched); if not, the caller writes them. */
  eventWritten: boolean;
  /** The responders the search found (none without a search). */
  candidates: ResponderRow[];
}

/**
 * PostgreSQL: the SOSs of one transaction (server/incidents/service.ts, `openIncidents`; one or
 * many) in one statement, sent with the BEGIN: one write, one answer. Each table's rows go as one
 * JSON parameter, so one statement text serves any number of SOSs and PostgreSQL starts its
 * executor once for all of them: a statement per SOS spent more of PostgreSQL's time starting
 * and ending the executor than writing rows (docs/benchmarks.md, "What an SOS costs the machine").
 * Columns an opening leaves out take the base row's values: only `tallied` has one (0, not yet
 * in the tallies: server/db/tallies.ts); the rest are named.
 * The parameters are `json`, read once by `json_populate_recordset`: `jsonb` built a sorted
 * binary copy of each first, about 6 % more of PostgreSQL's CPU per SOS.
 *
 * The incidents, their timelines, their events and the events' webhook deliveries are written by
 * WITH queries that each need the one before: nothing for an SOS whose idempotency_key is taken,
 * no event or deliveries for one whose cached destinations an endpoint change made stale. The
 * first dispatch round's candidates of each SOS are read in the final SELECT. Each table's part
 * comes from the store that owns it. The events' feed positions are not taken here: the feed's
 * numbering does that after commit (migration 0020), so unrelated organizations' SOSs do not
 * queue behind each other. Any failure fails the whole statement, and so the whole group
 * (server/db/transaction-group.ts runs its members again alone). One answer per opening, in
 * their order.
 */
export async function insertIncidentOpenings(db: Executor, openings: readonly IncidentOpening[]): Promise<OpeningWritten[]> {
  const result = await incidentOpenings(db, {
    incidents: JSON.stringify(openings.map((opening) => opening.row)),
    timelines: JSON.stringify(openings.flatMap((opening) => opening.timeline)),
    events: JSON.stringify(openings.map((opening) => ({ ...opening.event.row, webhookRevision: opening.event.webhookRevision }))),
    jobs: JSON.stringify(openings.flatMap((opening) => opening.event.deliveries)),
    searches: JSON.stringify(
      openings.map((opening, i) => ({ ord: i + 1, incident_id: opening.row.incident_id, searching: opening.search !== undefined, ...(opening.search ?? NO_SEARCH) })),
    ),
  });
  return result.rows.map(openingWritten);
}

const openingWritten = (answer: { created: number; evented: number; candidates: ResponderRow[] | null }): OpeningWritten => ({
  created: Number(answer.created) === 1,
  eventWritten: Number(answer.evented) === 1,
  candidates: answer.candidates ?? [],
});

/** The search's parameters when there is none (a simulated incident): `searching` is false, the box empty. */
const NO_SEARCH: RespondersSearch = { environment: '', minLat: 1, maxLat: 0, minLng: 1, maxLng: 0 };

/** Each SOS's search, as columns of the row `s` of the statement's final SELECT. */
const SEARCH_OF_ROW = {
  environment: sql.ref('s.environment'),
  minLat: sql.ref('s.minLat'),
  maxLat: sql.ref('s.maxLat'),
  minLng: sql.ref('s.minLng'),
  maxLng: sql.ref('s.maxLng'),
} as unknown as RespondersSearch;

/** Compiled once (server/db/prepared.ts): every table's rows are one JSON parameter. */
const incidentOpenings = preparedQuery(
  (db, p: { incidents: string; timelines: string; events: string; jobs: string; searches: string }): Compilable<{ created: number; evented: number; candidates: ResponderRow[] | null }> => {
    const statement = sql<{ created: number; evented: number; candidates: ResponderRow[] | null }>`with inserted as (insert into incidents
  select * from json_populate_recordset(json_populate_record(null::incidents, '{"tallied": 0}'), ${p.incidents}::json)
  on conflict (organization_id, environment, idempotency_key) where idempotency_key is not null do nothing
  returning incident_id),
timeline as (insert into incident_timeline (incident_id, seq, status, event, message, "timestamp")
  select t.incident_id, t.seq, t.status, t.event, t.message, t."timestamp"
  from json_populate_recordset(null::incident_timeline, ${p.timelines}::json) as t
  where t.incident_id in (select incident_id from inserted)),
written_events as (${eventsAtRevisionAfter({ query: 'inserted', afterId: 'incident_id' }, p.events)}),
deliveries as (${jobsForEventsOf('written_events', p.jobs)})
select (select count(*) from inserted where inserted.incident_id = s.incident_id) as created,
  (select count(*) from written_events where written_events.resource_id = s.incident_id) as evented,
  (select json_agg(r) from (${respondersInBoxQuery(db, SEARCH_OF_ROW)}) as r where s.searching) as candidates
from json_to_recordset(${p.searches}::json) as s(ord integer, incident_id text, searching boolean, environment text, "minLat" double precision, "maxLat" double precision, "minLng" double precision, "maxLng" double precision)
order by s.ord`;
    return { compile: () => statement.compile(db) };
  },
);

export async function findIncident(db: Executor, tenant: Tenant, incidentId: string): Promise<IncidentRow | undefined> {
  return db
    .selectFrom('incidents')
    .selectAll()
    .where('incident_id', '=', incidentId)
    .where(whereTenant(tenant))
    .where(whereSiteReached(tenant, 'organization'))
    .executeTakeFirst();
}

/**
 * The incident and its timeline in one query (one round trip on PostgreSQL): the timeline is
 * aggregated to a JSON array in the database, json_agg on PostgreSQL, json_group_array on SQLite.
 * The read of every GET /incidents/{id}: built and compiled once (server/db/prepared.ts).
 */
const incidentWithTimeline = preparedQuery((db, p: { incidentId: string; organizationId: string; environment: string }) => {
  const jsonArrayFrom = isPostgres(db) ? pgJsonArrayFrom : sqliteJsonArrayFrom;
  return db
    .selectFrom('incidents')
    .selectAll('incidents')
    .select((eb) =>
      jsonArrayFrom(
        eb
          .selectFrom('incident_timeline')
          .select(['incident_timeline.incident_id', 'seq', 'incident_timeline.status', 'event', 'message', 'timestamp'])
          .whereRef('incident_timeline.incident_id', '=', 'incidents.incident_id')
          .orderBy('seq'),
      ).as('timeline_json'),
    )
    .where('incidents.incident_id', '=', p.incidentId)
    .where(whereTenant(p, 'incidents'));
});

export type IncidentWithTimeline = { row: IncidentRow; timeline: TimelineRow[] };

/**
 * The read of every GET /incidents/{id}: the incident and its timeline in one query. On
 * PostgreSQL, concurrent requests' reads are one query for all of them (server/db/coalesced-read.ts).
 */
export async function findIncidentWithTimeline(db: Executor, tenant: Tenant, incidentId: string): Promise<IncidentWithTimeline | undefined> {
  const found = await incidentReads(db, { ...tenantParams(tenant), incidentId });
  // Read by the tenant alone (shared by concurrent requests); a site beyond a limited caller's is not theirs.
  return found && reachesSite(tenant.sites, found.row.site_id, 'organization') ? found : undefined;
}

type IncidentKey = { incidentId: string; organizationId: string; environment: string };

const incidentReads = coalescedRead<IncidentKey, IncidentWithTimeline>({
  one: async (db, key) => {
    const found = (await incidentWithTimeline(db, key)).rows[0];
    return found && splitTimeline(found);
  },
  many: async (db, keys) => {
    const result = await db.executeQuery<IncidentRow & { timeline_json: unknown; key_index: number }>(
      CompiledQuery.raw(INCIDENTS_WITH_TIMELINES, [
        keys.map((k) => k.incidentId),
        keys.map((k) => k.organizationId),
        keys.map((k) => k.environment),
      ]),
    );
    const answers: Array<IncidentWithTimeline | undefined> = keys.map(() => undefined);
    for (const { key_index, ...found } of result.rows) answers[key_index - 1] = splitTimeline(found);
    return answers;
  },
});

/**
 * PostgreSQL only: `incidentWithTimeline` for many keys at once. Each key carries its own
 * tenant, matched in the join (the tenant rule of whereTenant, per key); `key_index` (1-based)
 * says which key a row answers.
 */
const INCIDENTS_WITH_TIMELINES = `select "incidents".*, (select coalesce(json_agg(agg), '[]') from (select "incident_timeline"."incident_id", "seq", "incident_timeline"."status", "event", "message", "timestamp" from "incident_timeline" where "incident_timeline"."incident_id" = "incidents"."incident_id" order by "seq") as agg) as "timeline_json", "k"."key_index"
from unnest($1::text[], $2::text[], $3::text[]) with ordinality as "k"("incident_id", "organization_id", "environment", "key_index")
join "incidents" on "incidents"."incident_id" = "k"."incident_id" and "incidents"."organization_id" = "k"."organization_id" and "incidents"."environment" = "k"."environment"`;

function splitTimeline(found: IncidentRow & { timeline_json: unknown }): IncidentWithTimeline {
  const { timeline_json, ...row } = found;
  // SQLite hands the array back as text; PostgreSQL's driver has parsed it already.
  const timeline = (typeof timeline_json === 'string' ? JSON.parse(timeline_json) : timeline_json) as TimelineRow[];
  return { row: row as IncidentRow, timeline };
}

export async function findIncidentByIdempotencyKey(db: Executor, tenant: Tenant, key: string): Promise<IncidentRow | undefined> {
  return db
    .selectFrom('incidents')
    .selectAll()
    .where(whereTenant(tenant))
    .where('idempotency_key', '=', key)
    .executeTakeFirst();
}

export interface IncidentFilter {
  siteId?: string;
  status?: string;
  /** Any of these statuses (`status=active`). */
  statusIn?: readonly string[];
  category?: string;
  severity?: string;
  search?: string;
  createdFrom?: string;
  createdBefore?: string;
}

/** Incidents, newest first: the cursor seeks `incidents_by_org_created`. */
const INCIDENT_ORDER: ListOrder = { name: 'incidents', kind: 'keyset', column: 'created_at', id: 'incident_id', direction: 'desc' };

/** `search`: the subject's name and phone (migration 0036's text indexes). */
const INCIDENT_SEARCH: SearchSpec = { columns: ['subject_name', 'subject_phone'], fts: 'incidents_fts' };

/** Whole seconds from creation to `column` (as `sla` rounds them), null until it happens. */
const secondsTo = (column: 'assigned_at' | 'on_scene_at') => (postgres: boolean) =>
  postgres
    ? sql<number | null>`round(extract(epoch from (${sql.ref(`b.${column}`)}::timestamptz - b.created_at::timestamptz)))::int`
    : sql<number | null>`cast(round(((unixepoch(${sql.ref(`b.${column}`)}) - unixepoch(b.created_at)) * 1000 + cast(substr(${sql.ref(`b.${column}`)}, 21, 3) as integer) - cast(substr(b.created_at, 21, 3) as integer)) / 1000.0) as integer)`;

const INCIDENT_ROLLUP: Rollup = { table: 'incident_tallies', dims: ['site_id', 'status', 'category', 'severity'] };
const INCIDENT_TIMES: Rollup = {
  table: 'incident_time_tallies',
  dims: ['site_id'],
  histograms: { to_assign: { value: secondsTo('assigned_at'), bucket: secondsBucket }, to_arrive: { value: secondsTo('on_scene_at'), bucket: secondsBucket } },
};

/** Incidents are tallied by creation day once resolved or cancelled (server/db/tallies.ts). */
export const INCIDENT_TALLY: TallySpec = {
  name: 'incidents',
  lockKey: 2,
  table: 'incidents',
  id: 'incident_id',
  dayColumn: 'created_at',
  scope: ['organization_id', 'environment'],
  settled: sql<boolean>`b.status in ('resolved', 'cancelled')`,
  rollups: [INCIDENT_ROLLUP, INCIDENT_TIMES],
};

function filteredIncidents(db: Executor, tenant: Tenant, filter: IncidentFilter, way?: SearchWay) {
  let base = fromTenant(db, tenant, 'incidents', { siteId: filter.siteId });
  if (filter.status) base = base.where('status', '=', filter.status);
  if (filter.statusIn) base = base.where('status', 'in', filter.statusIn);
  if (filter.category) base = base.where('category', '=', filter.category);
  if (filter.severity) base = base.where('severity', '=', filter.severity);
  if (filter.createdFrom) base = base.where('created_at', '>=', filter.createdFrom);
  if (filter.createdBefore) base = base.where('created_at', '<', filter.createdBefore);
  if (filter.search) base = base.where(matchesText(db, INCIDENT_SEARCH, filter.search, way));
  return base;
}

export async function listIncidentRows(db: Executor, tenant: Tenant, filter: IncidentFilter, page: PageRequest) {
  return pagedRows(filteredIncidents(db, tenant, filter).selectAll(), INCIDENT_ORDER, page, { skip: tallySkip(db, incidentTally(tenant, filter)) });
}

/** A search's page and total in one statement, when it can (`searchedPage`). */
export async function searchIncidentRows(db: Executor, tenant: Tenant, filter: IncidentFilter, page: PageRequest) {
  const way = await searchWay(db, incidentTally(tenant, filter));
  return searchedPage<IncidentRow>(db, 'incidents', filteredIncidents(db, tenant, filter, way), INCIDENT_ORDER, page, SEARCH_COUNT_CEILING);
}

/** How the incidents listed are counted (total, deep pages): a search up to its ceiling, every field filter and window from the tallies. */
function incidentTally(tenant: Tenant, filter: IncidentFilter): ListTally {
  const equals: Record<string, string | readonly string[]> = {};
  if (filter.status) equals.status = filter.status;
  if (filter.statusIn) equals.status = filter.statusIn;
  if (filter.category) equals.category = filter.category;
  if (filter.severity) equals.severity = filter.severity;
  return {
    spec: INCIDENT_TALLY,
    rollup: INCIDENT_ROLLUP,
    filter: { ...tenantTally(narrowedToSite(tenant, filter.siteId), 'organization'), equals, from: filter.createdFrom, before: filter.createdBefore },
    search: filter.search,
  };
}

/** How many incidents match (`incidentTally`). */
export async function countIncidents(db: Executor, tenant: Tenant, filter: IncidentFilter): Promise<Total> {
  return listTotal(db, () => filteredIncidents(db, tenant, filter), incidentTally(tenant, filter));
}

/** Compare-and-set on `version`: false when someone else changed the incident first. */
export async function updateIncidentAtVersion(
  db: Executor,
  incidentId: string,
  expectedVersion: number,
  changes: Partial<IncidentRow>,
): Promise<boolean> {
  const result = await db
    .updateTable('incidents')
    .set(changes)
    .where('incident_id', '=', incidentId)
    .where('version', '=', expectedVersion)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function insertTimelineRows(db: Executor, rows: TimelineRow[]): Promise<void> {
  await timelineInsert(db, rowParams(rows));
}

/** An incident's opening rows (every POST /incidents): compiled once per row count. */
const timelineInsert = preparedQuery((db, params: Record<string, unknown>) =>
  db.insertInto('incident_timeline').values(paramRows(params) as unknown as TimelineRow[]),
);

export async function appendTimelineRow(db: Executor, entry: Omit<TimelineRow, 'seq'>): Promise<void> {
  const last = await db
    .selectFrom('incident_timeline')
    .select((eb) => eb.fn.max('seq').as('seq'))
    .where('incident_id', '=', entry.incident_id)
    .executeTakeFirst();
  await db
    .insertInto('incident_timeline')
    .values({ ...entry, seq: (last?.seq ?? 0) + 1 })
    .execute();
}

export async function timelinesOf(db: Executor, incidentIds: string[]): Promise<Map<string, TimelineRow[]>> {
  const byIncident = new Map<string, TimelineRow[]>(incidentIds.map((id) => [id, []]));
  if (incidentIds.length === 0) return byIncident;
  const rows = await db
    .selectFrom('incident_timeline')
    .selectAll()
    .where('incident_id', 'in', incidentIds)
    .orderBy('incident_id')
    .orderBy('seq')
    .execute();
  for (const row of rows) byIncident.get(row.incident_id)?.push(row);
  return byIncident;
}

export interface IncidentWindow {
  createdFrom?: string;
  createdBefore?: string;
}

/** Counts of the incidents created in the window, per category, status and severity together. */
export async function countIncidentsByKind(db: Executor, tenant: Tenant, window: IncidentWindow) {
  const groups = await talliedGroups(db, INCIDENT_TALLY, INCIDENT_ROLLUP, { ...tenantTally(tenant, 'organization'), from: window.createdFrom, before: window.createdBefore }, ['category', 'status', 'severity']);
  return groups.map((group) => ({ category: group.category!, status: group.status!, severity: group.severity!, n: group.n }));
}

/** Seconds to assign and to arrive of the incidents created in the window, as histograms (server/db/histogram.ts). */
export async function responseTimesOf(db: Executor, tenant: Tenant, window: IncidentWindow) {
  const filter = { ...tenantTally(tenant, 'organization'), from: window.createdFrom, before: window.createdBefore };
  const { to_assign: toAssign, to_arrive: toArrive } = await talliedHistograms(db, INCIDENT_TALLY, INCIDENT_TIMES, filter, ['to_assign', 'to_arrive']);
  return { toAssign: toAssign!, toArrive: toArrive! };
}

/** The response intervals' rows of the tenant's incidents created in the window (server/incidents/intervals.ts), within the caller's sites. */
export async function intervalRows(db: Executor, tenant: Tenant, window: { from: string; to: string }, siteId: string | undefined): Promise<IntervalRow[]> {
  // whereSiteReached's unqualified site_id would be ambiguous beside the joined sites: the same rule, on incidents.site_id.
  const sites = narrowedToSite(tenant, siteId).sites ?? null;
  let base = db.selectFrom('incidents').where(whereTenant(tenant, 'incidents'));
  if (sites) base = sites.length ? base.where('incidents.site_id', 'in', sites) : base.where((eb) => eb.lit(false));
  return (await intervalRowsOf(base, window).execute()) as IntervalRow[];
}
