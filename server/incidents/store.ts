import { CompiledQuery } from 'kysely';
import { jsonArrayFrom as pgJsonArrayFrom } from 'kysely/helpers/postgres';
import { jsonArrayFrom as sqliteJsonArrayFrom } from 'kysely/helpers/sqlite';
import { coalescedRead } from '../db/coalesced-read.ts';
import { paramRows, preparedQuery, rowParams } from '../db/prepared.ts';
import { isPostgres, type Executor, type IncidentRow, type Tenant, type TimelineRow } from '../db/schema.ts';
import { tenantParams, whereTenant } from '../db/tenant.ts';

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
 * Inserts an incident and its opening timeline rows (at least one); false, and nothing written,
 * when an incident with its idempotency_key exists already. On PostgreSQL one statement (the
 * timeline is inserted from the incident insert's RETURNING, in a WITH), so an SOS costs one
 * round trip for both; on SQLite, where a statement is a call into the process, two.
 */
export async function insertIncidentWithTimeline(db: Executor, row: IncidentRow, timeline: TimelineRow[]): Promise<boolean> {
  if (!isPostgres(db)) {
    if (!(await insertIncident(db, row))) return false;
    await insertTimelineRows(db, timeline);
    return true;
  }
  const incident = Object.fromEntries(Object.entries(row).map(([column, value]) => [`incident.${column}`, value]));
  // Each timeline row takes its incident_id from the insert's RETURNING.
  const entries = timeline.map(({ incident_id: _sameIncident, ...entry }) => entry);
  const result = await incidentAndTimelineInsert(db, { ...incident, ...rowParams(entries) });
  return Number(result.numAffectedRows ?? 0n) > 0;
}

/** PostgreSQL only: built and compiled once per timeline row count (server/db/prepared.ts). */
const incidentAndTimelineInsert = preparedQuery((db, params: Record<string, unknown>) => {
  const incident: Record<string, unknown> = {};
  const timeline: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(params)) {
    if (name.startsWith('incident.')) incident[name.slice('incident.'.length)] = value;
    else timeline[name] = value;
  }
  const rows = paramRows(timeline) as unknown as Omit<TimelineRow, 'incident_id'>[];
  return db
    .with('inserted', (qb) =>
      qb
        .insertInto('incidents')
        .values(incident as unknown as IncidentRow)
        .onConflict((oc) =>
          oc.columns(['organization_id', 'environment', 'idempotency_key']).where('idempotency_key', 'is not', null).doNothing(),
        )
        .returning('incident_id'),
    )
    .insertInto('incident_timeline')
    .columns(['incident_id', 'seq', 'status', 'event', 'message', 'timestamp'])
    .expression((eb) =>
      rows
        .map((entry) =>
          eb
            .selectFrom('inserted')
            .select([
              'inserted.incident_id',
              eb.cast<number>(eb.val(entry.seq), 'integer').as('seq'),
              eb.cast<string>(eb.val(entry.status), 'text').as('status'),
              eb.cast<string>(eb.val(entry.event), 'text').as('event'),
              eb.cast<string>(eb.val(entry.message), 'text').as('message'),
              eb.cast<string>(eb.val(entry.timestamp), 'text').as('timestamp'),
            ]),
        )
        .reduce((all, next) => all.unionAll(next)),
    );
});

export async function findIncident(db: Executor, tenant: Tenant, incidentId: string): Promise<IncidentRow | undefined> {
  return db
    .selectFrom('incidents')
    .selectAll()
    .where('incident_id', '=', incidentId)
    .where(whereTenant(tenant))
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
  return incidentReads(db, { ...tenantParams(tenant), incidentId });
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
  status?: string;
  /** Any of these statuses (`status=active`). */
  statusIn?: readonly string[];
  category?: string;
  severity?: string;
  createdFrom?: string;
  createdBefore?: string;
}

export async function listIncidentRows(
  db: Executor,
  tenant: Tenant,
  filter: IncidentFilter,
  page: { offset: number; limit: number },
): Promise<{ rows: IncidentRow[]; total: number }> {
  let base = db
    .selectFrom('incidents')
    .where(whereTenant(tenant));
  if (filter.status) base = base.where('status', '=', filter.status);
  if (filter.statusIn) base = base.where('status', 'in', filter.statusIn);
  if (filter.category) base = base.where('category', '=', filter.category);
  if (filter.severity) base = base.where('severity', '=', filter.severity);
  if (filter.createdFrom) base = base.where('created_at', '>=', filter.createdFrom);
  if (filter.createdBefore) base = base.where('created_at', '<', filter.createdBefore);
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('created_at', 'desc').orderBy('incident_id', 'desc').offset(page.offset).limit(page.limit).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: count.n };
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
export async function countIncidentsByKind(
  db: Executor,
  tenant: Tenant,
  window: IncidentWindow,
): Promise<Array<{ category: string; status: string; severity: string; n: number }>> {
  let base = db.selectFrom('incidents').where(whereTenant(tenant));
  if (window.createdFrom) base = base.where('created_at', '>=', window.createdFrom);
  if (window.createdBefore) base = base.where('created_at', '<', window.createdBefore);
  return base
    .select(['category', 'status', 'severity', (eb) => eb.fn.countAll<number>().as('n')])
    .groupBy(['category', 'status', 'severity'])
    .execute();
}

/** Creation, assignment and arrival times of the incidents created in the window that were assigned. */
export async function assignmentTimesOf(
  db: Executor,
  tenant: Tenant,
  window: IncidentWindow,
): Promise<Array<{ created_at: string; assigned_at: string | null; on_scene_at: string | null }>> {
  let base = db.selectFrom('incidents').where(whereTenant(tenant)).where('assigned_at', 'is not', null);
  if (window.createdFrom) base = base.where('created_at', '>=', window.createdFrom);
  if (window.createdBefore) base = base.where('created_at', '<', window.createdBefore);
  return base.select(['created_at', 'assigned_at', 'on_scene_at']).execute();
}
