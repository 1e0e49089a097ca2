import { preparedQuery } from '../db/prepared.ts';
import type { EventRow, Executor, Tenant } from '../db/schema.ts';
import { whereTenant } from '../db/tenant.ts';

const scoped = (db: Executor, tenant: Tenant) => db.selectFrom('events').where(whereTenant(tenant));

export async function insertEvent(trx: Executor, row: EventRow): Promise<void> {
  await eventInsert(trx, row);
}

/** Every change that reports an event: built and compiled once (server/db/prepared.ts). */
const eventInsert = preparedQuery((trx, row: EventRow) => trx.insertInto('events').values(row));

/**
 * Inserts the event only while the webhook revision (migration 0015) still reads `webhookRevision`:
 * false, and nothing written, when an endpoint changed since the caller's cached destinations were
 * read. The check and the insert are one statement, so checking the cache costs no round trip.
 */
export async function insertEventAtWebhookRevision(trx: Executor, row: EventRow, webhookRevision: number): Promise<boolean> {
  const result = await eventInsertAtRevision(trx, { ...row, webhookRevision });
  return Number(result.numAffectedRows ?? 0n) === 1;
}

const eventInsertAtRevision = preparedQuery((trx, p: EventRow & { webhookRevision: number }) =>
  trx
    .insertInto('events')
    .columns(['event_id', 'organization_id', 'environment', 'type', 'resource_id', 'data', 'created_at'])
    .expression((eb) =>
      eb
        .selectFrom('webhook_revision')
        .select([
          eb.val(p.event_id).as('event_id'),
          eb.val(p.organization_id).as('organization_id'),
          eb.val(p.environment).as('environment'),
          eb.val(p.type).as('type'),
          eb.val(p.resource_id).as('resource_id'),
          eb.val(p.data).as('data'),
          eb.val(p.created_at).as('created_at'),
        ])
        .where('id', '=', 1)
        .where('revision', '=', p.webhookRevision),
    ),
);

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
