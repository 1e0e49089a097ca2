import type { ExpressionBuilder } from 'kysely';
import { sql } from 'kysely';
import { paramRows, preparedQuery, rowParams } from '../db/prepared.ts';
import type { Database, EventRow, Executor, Tenant } from '../db/schema.ts';
import { whereSiteReached, whereTenant } from '../db/tenant.ts';

/**
 * The tenant's events within the caller's sites: a key or person limited to sites reads the
 * events of their sites' incidents, codes, visits and kiosks, and none about no site.
 */
const scoped = (db: Executor, tenant: Tenant) => db.selectFrom('events').where(whereTenant(tenant)).where(whereSiteReached(tenant, 'organization'));

export async function insertEvents(trx: Executor, rows: readonly EventRow[]): Promise<void> {
  await eventsInsert(trx, rowParams(rows));
}

/** Built and compiled once per row count (server/db/prepared.ts). */
const eventsInsert = preparedQuery((trx, p: Record<string, unknown>) => trx.insertInto('events').values(paramRows(p) as unknown as EventRow[]));

/**
 * Inserts the event only while the webhook revision (migration 0015) still reads `webhookRevision`:
 * false, and nothing written, when an endpoint changed since the caller's cached destinations were
 * read. The check and the insert are one statement, so checking the cache costs no round trip.
 */
export async function insertEventsAtWebhookRevision(trx: Executor, rows: readonly EventRow[], webhookRevision: number): Promise<boolean> {
  const result = await eventsInsertAtRevision(trx, { ...rowParams(rows), webhookRevision });
  // One statement: every row or none, as the revision read in it did or did not match.
  return Number(result.numAffectedRows ?? 0n) === rows.length;
}

const EVENT_COLUMNS = ['event_id', 'organization_id', 'environment', 'type', 'resource_id', 'data', 'created_at', 'site_id'] as const;

/** One event's row, selected from the webhook revision row when the revision still matches. */
const eventAtRevision = (eb: ExpressionBuilder<Database, 'events'>, row: EventRow, webhookRevision: number) =>
  eb
    .selectFrom('webhook_revision')
    .select(EVENT_COLUMNS.map((column) => eb.val(row[column] ?? null).as(column)))
    .where('id', '=', 1)
    .where('revision', '=', webhookRevision);

/** Every change that reports events (a validation, two): one template per row count, rows as flat parameters. */
const eventsInsertAtRevision = preparedQuery((trx, p: Record<string, unknown>) => {
  const { webhookRevision, ...flat } = p;
  const [first, ...rest] = paramRows(flat) as unknown as EventRow[];
  return trx
    .insertInto('events')
    .columns([...EVENT_COLUMNS])
    .expression((eb) =>
      rest.reduce((union, row) => union.unionAll(eventAtRevision(eb, row, webhookRevision as number)), eventAtRevision(eb, first!, webhookRevision as number)),
    );
});

/**
 * PostgreSQL, a part of a larger statement (an SOS's opening, incidents/store.ts): inserts the
 * event only when the WITH query named `after` returned a row (the change it reports was made)
 * and the webhook revision still reads `webhookRevision` (the caller's cached destinations are
 * current), returning its event_id; otherwise nothing, and the caller writes it as
 * `appendEvents` does.
 */
export const eventAtRevisionAfter = (after: string, p: Record<(typeof EVENT_COLUMNS)[number] | 'webhookRevision', unknown>) =>
  sql`insert into events (${sql.join(EVENT_COLUMNS.map((column) => sql.ref(column)))})
select ${sql.join(EVENT_COLUMNS.map((column) => p[column] ?? null))}
from webhook_revision
where id = 1 and revision = ${p.webhookRevision} and exists (select 1 from ${sql.table(after)})
returning event_id`;

export interface EventFilter {
  /** The exact types to list (the caller's readable types, narrowed by the query's type). */
  types: readonly string[];
  resourceId?: string;
  createdFrom?: string;
  createdBefore?: string;
  /** Test events too (left out by default). */
  includeTest?: boolean;
}

/** The tenant's events, newest first, and how many match in all. */
export async function listEventRows(
  db: Executor,
  tenant: Tenant,
  filter: EventFilter,
  page: { offset: number; limit: number },
): Promise<{ rows: EventRow[]; total: number }> {
  if (filter.types.length === 0) return { rows: [], total: 0 };
  let base = scoped(db, tenant).where('type', 'in', filter.types);
  if (!filter.includeTest) base = base.where('test', '=', 0);
  if (filter.resourceId) base = base.where('resource_id', '=', filter.resourceId);
  if (filter.createdFrom) base = base.where('created_at', '>=', filter.createdFrom);
  if (filter.createdBefore) base = base.where('created_at', '<', filter.createdBefore);
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('created_at', 'desc').orderBy('event_id', 'desc').offset(page.offset).limit(page.limit).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: count.n };
}

/** A test event: stored so its deliveries are recorded, left out of the log unless asked for. */
export async function insertTestEvent(db: Executor, row: EventRow): Promise<void> {
  await db.insertInto('events').values({ ...row, test: 1 }).execute();
}

export async function findEvent(db: Executor, tenant: Tenant, eventId: string): Promise<EventRow | undefined> {
  return scoped(db, tenant).selectAll().where('event_id', '=', eventId).executeTakeFirst();
}

/** The tenant's events among these ids (a page of deliveries names them). */
export async function findEvents(db: Executor, tenant: Tenant, eventIds: readonly string[]): Promise<EventRow[]> {
  if (eventIds.length === 0) return [];
  return scoped(db, tenant).selectAll().where('event_id', 'in', eventIds).execute();
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

/** Every tenant's events numbered after `afterSeq`, in feed order: the host's one feed reader (events/feed.ts). */
export async function eventsAfter(db: Executor, afterSeq: number, limit: number): Promise<EventRow[]> {
  return db.selectFrom('events').selectAll().where('feed_seq', '>', afterSeq).orderBy('feed_seq').limit(limit).execute();
}

/** One tenant's events numbered after `afterSeq`, in feed order: a resuming stream's catch-up. */
export async function tenantEventsAfter(db: Executor, tenant: Tenant, afterSeq: number, limit: number): Promise<EventRow[]> {
  return scoped(db, tenant).selectAll().where('feed_seq', '>', afterSeq).orderBy('feed_seq').limit(limit).execute();
}

/** The newest feed position, 0 when nothing is numbered yet. */
export async function latestFeedSeq(db: Executor): Promise<number> {
  const row = await db.selectFrom('events').select((eb) => eb.fn.max('feed_seq').as('seq')).executeTakeFirst();
  return Number(row?.seq ?? 0);
}

/** Where a tenant's event sits in the feed (null: not numbered yet), and when it was made. */
export async function feedPositionOf(db: Executor, tenant: Tenant, eventId: string): Promise<Pick<EventRow, 'feed_seq' | 'created_at'> | undefined> {
  return scoped(db, tenant).select(['feed_seq', 'created_at']).where('event_id', '=', eventId).executeTakeFirst();
}

/**
 * PostgreSQL: numbers the committed events that have no feed position yet, one numbering at a
 * time across hosts (migration 0020's `tsaro_sequence_events`); answers how many it numbered.
 */
export async function sequenceCommittedEvents(db: Executor): Promise<number> {
  const result = await sql<{ numbered: number }>`select tsaro_sequence_events() as numbered`.execute(db);
  return Number(result.rows[0]?.numbered ?? 0);
}
