import type { Executor, Tenant } from '../db/schema.ts';
import { notFound } from '../http/errors.ts';
import { pageWindow, toPage, utcInstant, type PageRequest } from '../http/pagination.ts';
import type { EventRow } from '../db/schema.ts';

export interface EventQuery extends PageRequest {
  type?: string;
  resource_id?: string;
  from_date?: string;
  to_date?: string;
}

const rowToEvent = (row: EventRow) => ({ id: row.event_id, type: row.type, created_at: row.created_at, data: JSON.parse(row.data) as Record<string, unknown> });

const scoped = (db: Executor, tenant: Tenant) =>
  db.selectFrom('events').where('organization_id', '=', tenant.organizationId).where('environment', '=', tenant.environment);

/** The event log, newest first: what a webhook receiver that was down can recover. */
export async function listEvents(db: Executor, tenant: Tenant, query: EventQuery) {
  let base = scoped(db, tenant);
  if (query.type?.endsWith('.*')) base = base.where('type', 'like', `${query.type.slice(0, -1)}%`);
  else if (query.type) base = base.where('type', '=', query.type);
  if (query.resource_id) base = base.where('resource_id', '=', query.resource_id);
  const from = utcInstant(query.from_date);
  const before = utcInstant(query.to_date);
  if (from) base = base.where('created_at', '>=', from);
  if (before) base = base.where('created_at', '<', before);
  const page = pageWindow(query);
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('created_at', 'desc').orderBy('event_id', 'desc').offset(page.offset).limit(page.limit).execute(),
    base.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow(),
  ]);
  return toPage(rows.map(rowToEvent), Number(count.n), query);
}

export async function getEvent(db: Executor, tenant: Tenant, eventId: string) {
  const row = await scoped(db, tenant).selectAll().where('event_id', '=', eventId).executeTakeFirst();
  if (!row) throw notFound('Event');
  return rowToEvent(row);
}
