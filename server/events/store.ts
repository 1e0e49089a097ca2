import type { ExpressionBuilder } from 'kysely';
import { sql } from 'kysely';
import type { Total } from '../http/pagination.ts';
import { paramRows, preparedQuery, rowParams } from '../db/prepared.ts';
import { isPostgres, type Database, type EventRow, type Executor, type Tenant } from '../db/schema.ts';
import { fromTenant } from '../db/tenant.ts';
import { pagedRows, type ListOrder, type PageRequest } from '../db/paged.ts';
import { listTotal, tallySkip, tenantTally, type ListTally, type Rollup, type TallySpec } from '../db/tallies.ts';

/**
 * The tenant's events within the caller's sites: a key or person limited to sites reads the
 * events of their sites' incidents, codes, visits and kiosks, and none about no site.
 */
const scoped = (db: Executor, tenant: Tenant) => fromTenant(db, tenant, 'events');

/** The log, newest first: the cursor seeks `events_by_org_created`. */
const EVENT_ORDER: ListOrder = { name: 'events', kind: 'keyset', column: 'created_at', id: 'event_id', direction: 'desc' };

const EVENT_ROLLUP: Rollup = { table: 'event_tallies', dims: ['site_id', 'type', 'test'] };

/** Events never change what they are counted under: tallied by creation day as soon as the fold runs (server/db/tallies.ts). */
export const EVENT_TALLY: TallySpec = {
  name: 'events',
  lockKey: 4,
  table: 'events',
  id: 'event_id',
  dayColumn: 'created_at',
  scope: ['organization_id', 'environment'],
  settled: sql<boolean>`1 = 1`,
  rollups: [EVENT_ROLLUP],
};

/**
 * SQLite: the feed position of the `index`-th row (from 0) of one insert, taken from the counter
 * in the insert itself, so the row is written once with its number; a trigger then moves the
 * counter to it (migration 0035). An INSERT on a table with row triggers reads every row of its
 * VALUES or SELECT before writing the first, so the rows of one statement read the same counter
 * and take the next numbers in their order (test/db/sos-writes.test.ts; read row by row, they
 * would still take increasing numbers, only not consecutive ones). PostgreSQL: none (the
 * sequencer numbers committed events, migration 0020).
 */
const feedSeqOf = (trx: Executor, index: number) => (isPostgres(trx) ? undefined : sql<number>`(select seq from event_feed where id = 1) + ${sql.lit(index + 1)}`);

export async function insertEvents(trx: Executor, rows: readonly EventRow[]): Promise<void> {
  await eventsInsert(trx, rowParams(rows));
}

/** Built and compiled once per row count (server/db/prepared.ts). */
const eventsInsert = preparedQuery((trx, p: Record<string, unknown>) =>
  trx.insertInto('events').values((paramRows(p) as unknown as EventRow[]).map((row, index) => ({ ...row, feed_seq: feedSeqOf(trx, index) }))),
);

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

/** One event's row, selected from the webhook revision row when the revision still matches; on SQLite with its feed position. */
const eventAtRevision = (trx: Executor, eb: ExpressionBuilder<Database, 'events'>, row: EventRow, index: number, webhookRevision: number) => {
  const feedSeq = feedSeqOf(trx, index);
  return eb
    .selectFrom('webhook_revision')
    .select(EVENT_COLUMNS.map((column) => eb.val(row[column] ?? null).as(column)))
    .$if(feedSeq !== undefined, (select) => select.select(feedSeq!.as('feed_seq')))
    .where('id', '=', 1)
    .where('revision', '=', webhookRevision);
};

/** Every change that reports events (a validation, two): one template per row count, rows as flat parameters. */
const eventsInsertAtRevision = preparedQuery((trx, p: Record<string, unknown>) => {
  const { webhookRevision, ...flat } = p;
  const [first, ...rest] = paramRows(flat) as unknown as EventRow[];
  return trx
    .insertInto('events')
    .columns(isPostgres(trx) ? [...EVENT_COLUMNS] : [...EVENT_COLUMNS, 'feed_seq'])
    .expression((eb) => {
      const at = (row: EventRow, index: number) => eventAtRevision(trx, eb, row, index, webhookRevision as number);
      return rest.reduce((union, row, i) => union.unionAll(at(row, i + 1)), at(first!, 0));
    });
});

/**
 * PostgreSQL, a part of a larger statement (the SOSs of one transaction, incidents/store.ts):
 * inserts the events of `events`, a JSON array of event rows each with its `webhookRevision`,
 * whose resource_id the WITH query named `after` returned in its column `afterId` (the change it
 * reports was made), and only while the webhook revision still reads that event's
 * `webhookRevision` (the caller's cached destinations are current). Returns each written event's
 * event_id and resource_id; an event not written is written by the caller as `appendEvents` does.
 */
export const eventsAtRevisionAfter = (after: { query: string; afterId: string }, events: string) =>
  sql`insert into events (${sql.join(EVENT_COLUMNS.map((column) => sql.ref(column)))})
select ${sql.join(EVENT_COLUMNS.map((column) => sql.ref(`e.${column}`)))}
from json_to_recordset(${events}::json) as e(${sql.raw(EVENT_COLUMNS.map((column) => `${column} text`).join(', '))}, "webhookRevision" bigint)
join webhook_revision on webhook_revision.id = 1 and webhook_revision.revision = e."webhookRevision"
where e.resource_id in (select ${sql.ref(after.afterId)} from ${sql.table(after.query)})
returning event_id, resource_id`;

export interface EventFilter {
  /** The exact types to list (the caller's readable types, narrowed by the query's type). */
  types: readonly string[];
  resourceId?: string;
  createdFrom?: string;
  createdBefore?: string;
  /** Test events too (left out by default). */
  includeTest?: boolean;
}

function filteredEvents(db: Executor, tenant: Tenant, filter: EventFilter) {
  // A caller who may read no event type gets none (an empty IN is an error on PostgreSQL).
  let base = filter.types.length ? scoped(db, tenant).where('type', 'in', filter.types) : scoped(db, tenant).where(sql<boolean>`1 = 0`);
  if (!filter.includeTest) base = base.where('test', '=', 0);
  if (filter.resourceId) base = base.where('resource_id', '=', filter.resourceId);
  if (filter.createdFrom) base = base.where('created_at', '>=', filter.createdFrom);
  if (filter.createdBefore) base = base.where('created_at', '<', filter.createdBefore);
  return base;
}

/** The tenant's events, newest first. */
export async function listEventRows(db: Executor, tenant: Tenant, filter: EventFilter, page: PageRequest) {
  return pagedRows(filteredEvents(db, tenant, filter).selectAll(), EVENT_ORDER, page, { skip: tallySkip(db, eventTally(tenant, filter)) });
}

/** How the events listed are counted (total, deep pages): one resource's on its index, the rest from the tallies. */
function eventTally(tenant: Tenant, filter: EventFilter): ListTally {
  return {
    spec: EVENT_TALLY,
    rollup: EVENT_ROLLUP,
    filter: {
      ...tenantTally(tenant, 'organization'),
      equals: { type: filter.types, ...(filter.includeTest ? {} : { test: 0 }) },
      from: filter.createdFrom,
      before: filter.createdBefore,
    },
    narrowed: filter.resourceId,
  };
}

/** How many events match (`eventTally`). */
export async function countEvents(db: Executor, tenant: Tenant, filter: EventFilter): Promise<Total> {
  if (filter.types.length === 0) return { n: 0 };
  return listTotal(db, () => filteredEvents(db, tenant, filter), eventTally(tenant, filter));
}

/** A test event: stored so its deliveries are recorded, left out of the log unless asked for. */
export async function insertTestEvent(db: Executor, row: EventRow): Promise<void> {
  await db.insertInto('events').values({ ...row, test: 1, feed_seq: feedSeqOf(db, 0) }).execute();
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
