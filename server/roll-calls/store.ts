import { pageAndCount, type ListOrder, type PageRequest } from '../db/paged.ts';
import type { Executor, RollCallEntryRow, RollCallRow, Tenant } from '../db/schema.ts';
import { whereSiteReached, whereTenant } from '../db/tenant.ts';

/** The tenant's roll calls within the caller's sites (one of every site is for those who reach them all), perhaps of one site. */
const scoped = (db: Executor, tenant: Tenant, siteId?: string) =>
  db.selectFrom('roll_calls').where(whereTenant(tenant)).where(whereSiteReached(tenant, 'organization', { siteId }));

/** Rows per INSERT: 11 columns each, well under SQLite's 32,766 parameters. */
const ENTRY_CHUNK = 500;

export async function insertRollCall(trx: Executor, row: RollCallRow, entries: readonly RollCallEntryRow[]): Promise<void> {
  await trx.insertInto('roll_calls').values(row).execute();
  for (let i = 0; i < entries.length; i += ENTRY_CHUNK) {
    await trx.insertInto('roll_call_entries').values(entries.slice(i, i + ENTRY_CHUNK)).execute();
  }
}

export async function findRollCall(db: Executor, tenant: Tenant, rollCallId: string): Promise<RollCallRow | undefined> {
  return scoped(db, tenant).selectAll().where('roll_call_id', '=', rollCallId).executeTakeFirst();
}

export async function rollCallEntries(db: Executor, rollCallId: string): Promise<RollCallEntryRow[]> {
  return db.selectFrom('roll_call_entries').selectAll().where('roll_call_id', '=', rollCallId).orderBy('checked_in_at').orderBy('log_id').execute();
}

export async function findRollCallEntry(db: Executor, rollCallId: string, logId: string): Promise<RollCallEntryRow | undefined> {
  return db.selectFrom('roll_call_entries').selectAll().where('roll_call_id', '=', rollCallId).where('log_id', '=', logId).executeTakeFirst();
}

/** Newest first; the cursor seeks the (tenant, created_at) index. */
const ROLL_CALLS_ORDER: ListOrder = { name: 'roll_calls', kind: 'keyset', column: 'created_at', id: 'roll_call_id', direction: 'desc' };

export async function listRollCallRows(db: Executor, tenant: Tenant, page: PageRequest, siteId?: string) {
  const base = scoped(db, tenant, siteId);
  return pageAndCount(base.selectAll(), ROLL_CALLS_ORDER, page);
}

/** People on each roll call and how many are ticked. */
export async function entryCounts(db: Executor, rollCallIds: readonly string[]): Promise<Map<string, { total: number; accounted: number }>> {
  if (rollCallIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('roll_call_entries')
    .select((eb) => ['roll_call_id', eb.fn.countAll<number>().as('total'), eb.fn.sum<number>('accounted_for').as('accounted')])
    .where('roll_call_id', 'in', rollCallIds)
    .groupBy('roll_call_id')
    .execute();
  return new Map(rows.map((row) => [row.roll_call_id, { total: row.total, accounted: Number(row.accounted ?? 0) }]));
}

export async function markEntry(
  db: Executor,
  rollCallId: string,
  logId: string,
  mark: Pick<RollCallEntryRow, 'accounted_for' | 'accounted_by_type' | 'accounted_by_id' | 'accounted_by_label' | 'accounted_at'>,
): Promise<boolean> {
  const result = await db.updateTable('roll_call_entries').set(mark).where('roll_call_id', '=', rollCallId).where('log_id', '=', logId).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** A visit erased under a retention policy leaves no name or phone on a roll call either. */
export async function eraseEntryVisitor(db: Executor, logId: string): Promise<void> {
  await db.updateTable('roll_call_entries').set({ visitor_name: null, visitor_phone: null }).where('log_id', '=', logId).execute();
}
