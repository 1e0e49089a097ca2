import { sql } from 'kysely';
import type { Total } from '../http/pagination.ts';
import { pagedRows, searchedPage, type ListOrder, type PageRequest } from '../db/paged.ts';
import { preparedQuery } from '../db/prepared.ts';
import type { AccessLogRow, Executor, Tenant } from '../db/schema.ts';
import { listTotal, searchWay, tallySkip, talliedGroups, tenantTally, type ListTally, type Rollup, type TallySpec } from '../db/tallies.ts';
import { fromTenant, narrowedToSite } from '../db/tenant.ts';
import { matchesText, SEARCH_COUNT_CEILING, type SearchSpec, type SearchWay } from '../db/text-search.ts';

/** The tenant's visits within the caller's sites (a key or person limited to sites sees only theirs), perhaps of one site. */
const scoped = (db: Executor, tenant: Tenant, siteId?: string) => fromTenant(db, tenant, 'access_logs', { siteId });

/** Visits, newest check-in first: the cursor seeks `access_logs_by_checkin`. */
const VISIT_ORDER: ListOrder = { name: 'access_logs', kind: 'keyset', column: 'checked_in_at', id: 'log_id', direction: 'desc' };

/** `search`: visitor names and phones (FTS5 on SQLite, trigram GIN on PostgreSQL: migration 0036). */
const VISIT_SEARCH: SearchSpec = { columns: ['visitor_name', 'visitor_phone'], fts: 'access_logs_fts' };

/** Whole minutes on the premises, as `durationMinutes` counts them (server/access-logs/access-log.ts); null while open. */
const minutesOnPremises = (postgres: boolean) =>
  postgres
    ? sql<number | null>`greatest(0, floor(extract(epoch from (b.checked_out_at::timestamptz - b.checked_in_at::timestamptz)) * 1000 / 60000))::int`
    : sql<number | null>`max(0, ((unixepoch(b.checked_out_at) - unixepoch(b.checked_in_at)) * 1000 + cast(substr(b.checked_out_at, 21, 3) as integer) - cast(substr(b.checked_in_at, 21, 3) as integer)) / 60000)`;

const VISIT_ROLLUP: Rollup = { table: 'visit_tallies', dims: ['site_id', 'entry_point', 'method', 'status'], sums: { minutes: minutesOnPremises } };

/** Visits are tallied by check-in day once checked out (server/db/tallies.ts). */
export const VISIT_TALLY: TallySpec = {
  name: 'visits',
  lockKey: 1,
  table: 'access_logs',
  id: 'log_id',
  dayColumn: 'checked_in_at',
  scope: ['organization_id', 'environment'],
  settled: sql<boolean>`b.status = 'checked_out'`,
  rollups: [VISIT_ROLLUP],
};

export async function insertAccessLog(db: Executor, row: AccessLogRow): Promise<void> {
  await accessLogInsert(db, row);
}

/**
 * Every check-in: built and compiled once (server/db/prepared.ts). A new row under a fresh id, so
 * its transaction need not wait for it (server/db/deferred-write.ts).
 */
const accessLogInsert = preparedQuery((db, row: AccessLogRow) => db.insertInto('access_logs').values(row), { deferred: true });

export async function findAccessLog(db: Executor, tenant: Tenant, logId: string): Promise<AccessLogRow | undefined> {
  return scoped(db, tenant).selectAll().where('log_id', '=', logId).executeTakeFirst();
}

/** Closes an open visit; false when it was already closed (by another gate, or the auto-checkout). */
export async function closeVisit(db: Executor, logId: string, changes: Partial<AccessLogRow>): Promise<boolean> {
  const result = await db
    .updateTable('access_logs')
    .set({ ...changes, status: 'checked_out' })
    .where('log_id', '=', logId)
    .where('status', '=', 'checked_in')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export interface LogFilter {
  siteId?: string;
  status?: string;
  visitorPhone?: string;
  /** A gate's names, now and before a rename (`everyNameOf`): what its visits may have recorded. */
  entryPoint?: readonly string[];
  search?: string;
  checkedInFrom?: string;
  checkedInBefore?: string;
}

function filtered(db: Executor, tenant: Tenant, filter: LogFilter, way?: SearchWay) {
  let base = scoped(db, tenant, filter.siteId);
  if (filter.status) base = base.where('status', '=', filter.status);
  if (filter.visitorPhone) base = base.where('visitor_phone', '=', filter.visitorPhone);
  if (filter.entryPoint) base = base.where('entry_point', 'in', filter.entryPoint.length ? filter.entryPoint : ['']);
  if (filter.checkedInFrom) base = base.where('checked_in_at', '>=', filter.checkedInFrom);
  if (filter.checkedInBefore) base = base.where('checked_in_at', '<', filter.checkedInBefore);
  if (filter.search) base = base.where(matchesText(db, VISIT_SEARCH, filter.search, way));
  return base;
}

export async function listAccessLogRows(db: Executor, tenant: Tenant, filter: LogFilter, page: PageRequest) {
  return pagedRows(filtered(db, tenant, filter).selectAll(), VISIT_ORDER, page, { skip: tallySkip(db, visitTally(tenant, filter)) });
}

/** A search's page and total in one statement, when it can (`searchedPage`). */
export async function searchAccessLogRows(db: Executor, tenant: Tenant, filter: LogFilter, page: PageRequest) {
  const way = await searchWay(db, visitTally(tenant, filter));
  return searchedPage<AccessLogRow>(db, 'access_logs', filtered(db, tenant, filter, way), VISIT_ORDER, page, SEARCH_COUNT_CEILING);
}

/**
 * How the visits listed are counted (their total, and where a deep page starts): a search up to
 * its ceiling; an exact phone on its index; every other filter (site, status, gate, window) from
 * the tallies (server/db/tallies.ts).
 */
function visitTally(tenant: Tenant, filter: LogFilter): ListTally {
  const equals: Record<string, string | readonly string[]> = {};
  if (filter.status) equals.status = filter.status;
  if (filter.entryPoint) equals.entry_point = filter.entryPoint;
  return {
    spec: VISIT_TALLY,
    rollup: VISIT_ROLLUP,
    filter: { ...tenantTally(narrowedToSite(tenant, filter.siteId), 'organization'), equals, from: filter.checkedInFrom, before: filter.checkedInBefore },
    search: filter.search,
    narrowed: filter.visitorPhone,
  };
}

/** How many visits match (`visitTally`). */
export async function countAccessLogs(db: Executor, tenant: Tenant, filter: LogFilter): Promise<Total> {
  return listTotal(db, () => filtered(db, tenant, filter), visitTally(tenant, filter));
}

/** Visits checked in within the window, by site, gate, method and status, with their minutes on the premises (closed visits only). */
export async function visitTallies(db: Executor, tenant: Tenant, from?: string, before?: string) {
  return talliedGroups(db, VISIT_TALLY, VISIT_ROLLUP, { ...tenantTally(tenant, 'organization'), from, before }, ['site_id', 'entry_point', 'method', 'status']);
}

export async function openVisitRows(db: Executor, tenant: Tenant, filter: Pick<LogFilter, 'entryPoint' | 'search'>): Promise<AccessLogRow[]> {
  return filtered(db, tenant, { ...filter, status: 'checked_in' }).selectAll().orderBy('checked_in_at').orderBy('log_id').execute();
}

/** Open visits at any of these entry points (all open visits when none are given), longest on premises first. */
export async function openVisitRowsAt(db: Executor, tenant: Tenant, entryPoints?: readonly string[], siteId?: string): Promise<AccessLogRow[]> {
  let base = scoped(db, tenant, siteId).where('status', '=', 'checked_in');
  if (entryPoints) base = base.where('entry_point', 'in', entryPoints.length ? entryPoints : ['']);
  return base.selectAll().orderBy('checked_in_at').orderBy('log_id').execute();
}

export async function countOpenVisits(db: Executor, tenant: Tenant): Promise<number> {
  const row = await scoped(db, tenant)
    .where('status', '=', 'checked_in')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return row.n;
}

/** Open visits of one tenant that checked in at or before `before` (for the auto-checkout policy). */
export async function openVisitsCheckedInBefore(db: Executor, tenant: Tenant, before: string, limit: number): Promise<AccessLogRow[]> {
  return scoped(db, tenant)
    .selectAll()
    .where('status', '=', 'checked_in')
    .where('checked_in_at', '<=', before)
    .orderBy('checked_in_at')
    .limit(limit)
    .execute();
}

/** Visits of an organization closed before `closedBefore` whose visitor data is still there. */
export async function closedVisitsToErase(db: Executor, organizationId: string, closedBefore: string, limit: number): Promise<string[]> {
  // The predicate of `access_logs_to_erase` (migration 0036) as literals, so both planners use it.
  const rows = await db
    .selectFrom('access_logs')
    .select('log_id')
    .where('organization_id', '=', organizationId)
    .where(sql<boolean>`status = 'checked_out' and erased_at is null`)
    .where('checked_out_at', '<', closedBefore)
    .orderBy('checked_out_at')
    .limit(limit)
    .execute();
  return rows.map((row) => row.log_id);
}

export async function eraseVisit(db: Executor, logId: string, at: string): Promise<void> {
  await db
    .updateTable('access_logs')
    .set({ visitor_name: null, visitor_phone: null, erased_at: at, updated_at: at })
    .where('log_id', '=', logId)
    .execute();
}

/**
 * The visit the holder of a code had open at `at` (checked in with it by then, not out by then),
 * the earliest first; undefined when none. Read through `access_logs_by_code` (migration 0055).
 */
export async function openVisitOfCodeAt(db: Executor, tenant: Tenant, codeId: string, siteId: string, at: string): Promise<AccessLogRow | undefined> {
  return scoped(db, tenant)
    .where('code_id', '=', codeId)
    .where('site_id', '=', siteId)
    .where('checked_in_at', '<=', at)
    .where((eb) => eb.or([eb('checked_out_at', 'is', null), eb('checked_out_at', '>', at)]))
    .selectAll()
    .orderBy('checked_in_at')
    .limit(1)
    .executeTakeFirst();
}
