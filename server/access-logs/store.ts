import { preparedQuery } from '../db/prepared.ts';
import type { AccessLogRow, Executor, Tenant } from '../db/schema.ts';
import { whereSiteReached, whereTenant } from '../db/tenant.ts';
import { containsText } from '../db/search.ts';

/** The tenant's visits within the caller's sites (a key or person limited to sites sees only theirs), perhaps of one site. */
const scoped = (db: Executor, tenant: Tenant, siteId?: string) =>
  db
    .selectFrom('access_logs')
    .where(whereTenant(tenant))
    .where(whereSiteReached(tenant, 'organization', { siteId }));

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
  entryPoint?: string;
  search?: string;
  checkedInFrom?: string;
  checkedInBefore?: string;
}

function filtered(db: Executor, tenant: Tenant, filter: LogFilter) {
  let base = scoped(db, tenant, filter.siteId);
  if (filter.status) base = base.where('status', '=', filter.status);
  if (filter.visitorPhone) base = base.where('visitor_phone', '=', filter.visitorPhone);
  if (filter.entryPoint) base = base.where('entry_point', '=', filter.entryPoint);
  if (filter.checkedInFrom) base = base.where('checked_in_at', '>=', filter.checkedInFrom);
  if (filter.checkedInBefore) base = base.where('checked_in_at', '<', filter.checkedInBefore);
  if (filter.search) {
    const text = filter.search;
    base = base.where((eb) => eb.or([containsText('visitor_name', text), containsText('visitor_phone', text)]));
  }
  return base;
}

export async function listAccessLogRows(
  db: Executor,
  tenant: Tenant,
  filter: LogFilter,
  page: { offset: number; limit: number },
): Promise<{ rows: AccessLogRow[]; total: number }> {
  const base = filtered(db, tenant, filter);
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('checked_in_at', 'desc').orderBy('log_id', 'desc').offset(page.offset).limit(page.limit).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: count.n };
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

export async function visitRowsCheckedInBetween(db: Executor, tenant: Tenant, from?: string, before?: string) {
  return filtered(db, tenant, { checkedInFrom: from, checkedInBefore: before })
    .select(['method', 'status', 'entry_point', 'checked_in_at', 'checked_out_at'])
    .execute();
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
  const rows = await db
    .selectFrom('access_logs')
    .select('log_id')
    .where('organization_id', '=', organizationId)
    .where('status', '=', 'checked_out')
    .where('checked_out_at', '<', closedBefore)
    .where('erased_at', 'is', null)
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
