import { preparedQuery } from '../db/prepared.ts';
import type { EventRow, Executor, Tenant } from '../db/schema.ts';
import { whereTenant } from '../db/tenant.ts';

const scoped = (db: Executor, tenant: Tenant) => db.selectFrom('events').where(whereTenant(tenant));

export async function insertEvent(trx: Executor, row: EventRow): Promise<void> {
  await eventInsert(trx, row);
}

/** Every change that reports an event: built and compiled once (server/db/prepared.ts). */
const eventInsert = preparedQuery((trx, row: EventRow) => trx.insertInto('events').values(row));

export interface EventFilter {
  /** An exact type, or a family: `incident.*`. */
  type?: string;
  resourceId?: string;
  createdFrom?: string;
  createdBefore?: string;
}

/** The tenant's events, newest first, and how many match in all. */
export async function listEventRows(
  db: Executor,
  tenant: Tenant,
  filter: EventFilter,
  page: { offset: number; limit: number },
): Promise<{ rows: EventRow[]; total: number }> {
  let base = scoped(db, tenant);
  if (filter.type?.endsWith('.*')) base = base.where('type', 'like', `${filter.type.slice(0, -1)}%`);
  else if (filter.type) base = base.where('type', '=', filter.type);
  if (filter.resourceId) base = base.where('resource_id', '=', filter.resourceId);
  if (filter.createdFrom) base = base.where('created_at', '>=', filter.createdFrom);
  if (filter.createdBefore) base = base.where('created_at', '<', filter.createdBefore);
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('created_at', 'desc').orderBy('event_id', 'desc').offset(page.offset).limit(page.limit).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: count.n };
}

export async function findEvent(db: Executor, tenant: Tenant, eventId: string): Promise<EventRow | undefined> {
  return scoped(db, tenant).selectAll().where('event_id', '=', eventId).executeTakeFirst();
}

/** An event by id alone: the webhook worker, which stands above tenants (its job names the event). */
export async function findEventById(db: Executor, eventId: string): Promise<EventRow | undefined> {
  return db.selectFrom('events').selectAll().where('event_id', '=', eventId).executeTakeFirst();
}

/** Every event about one resource (a visit, a code), with its stored data. */
export async function eventDataAbout(db: Executor, resourceId: string): Promise<Pick<EventRow, 'event_id' | 'data'>[]> {
  return db.selectFrom('events').select(['event_id', 'data']).where('resource_id', '=', resourceId).execute();
}

export async function replaceEventData(db: Executor, eventId: string, data: string): Promise<void> {
  await db.updateTable('events').set({ data }).where('event_id', '=', eventId).execute();
}
