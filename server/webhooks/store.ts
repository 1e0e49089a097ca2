import { pageAndCount, pagedRows, type ListOrder, type PageRequest } from '../db/paged.ts';
import { listTotal, tallySkip, type ListTally, type Rollup, type TallySpec } from '../db/tallies.ts';
import { sql } from 'kysely';
import type { Total } from '../http/pagination.ts';
import { inTransaction, type Executor, type Tenant, type WebhookDeliveryRow, type WebhookEndpointRow, type WebhookJobRow } from '../db/schema.ts';
import { preparedQuery } from '../db/prepared.ts';
import { tenantParams, whereSitesWithin, whereTenant } from '../db/tenant.ts';

const endpoints = (db: Executor, tenant: Tenant) =>
  db
    .selectFrom('webhook_endpoints')
    .where(whereTenant(tenant))
    .where('deleted_at', 'is', null);

export async function insertEndpoint(db: Executor, row: WebhookEndpointRow): Promise<void> {
  await db.insertInto('webhook_endpoints').values(row).execute();
}

export async function findEndpoint(db: Executor, tenant: Tenant, endpointId: string): Promise<WebhookEndpointRow | undefined> {
  return endpoints(db, tenant).where(whereSitesWithin(db, tenant)).selectAll().where('endpoint_id', '=', endpointId).executeTakeFirst();
}

export async function findEndpointById(db: Executor, endpointId: string): Promise<WebhookEndpointRow | undefined> {
  return db.selectFrom('webhook_endpoints').selectAll().where('endpoint_id', '=', endpointId).executeTakeFirst();
}

/** Newest first; the cursor seeks the (tenant, created_at) index. */
const WEBHOOK_ENDPOINTS_ORDER: ListOrder = { name: 'webhook_endpoints', kind: 'keyset', column: 'created_at', id: 'endpoint_id', direction: 'desc' };

export async function listEndpointRows(db: Executor, tenant: Tenant, filter: { status?: 'enabled' | 'disabled' }, page: PageRequest) {
  const reached = () => endpoints(db, tenant).where(whereSitesWithin(db, tenant));
  const matching = () => (filter.status ? reached().where('status', '=', filter.status) : reached());
  return pageAndCount(matching().selectAll(), WEBHOOK_ENDPOINTS_ORDER, page);
}

export async function updateEndpoint(db: Executor, endpointId: string, changes: Partial<WebhookEndpointRow>): Promise<void> {
  await db.updateTable('webhook_endpoints').set(changes).where('endpoint_id', '=', endpointId).execute();
}

/**
 * The enabled endpoints of a tenant with the webhook revision (migration 0015) they were read
 * at, in one statement: what the destinations cache (queue.ts) is filled with.
 */
export async function enabledEndpointsAtRevision(
  db: Executor,
  tenant: Tenant,
): Promise<{ revision: number; endpoints: Pick<WebhookEndpointRow, 'endpoint_id' | 'events' | 'site_ids'>[] }> {
  const { rows } = await endpointsAtRevision(db, tenantParams(tenant));
  return {
    revision: Number(rows[0]!.revision),
    endpoints: rows.flatMap((row) => (row.endpoint_id === null ? [] : [{ endpoint_id: row.endpoint_id, events: row.events!, site_ids: row.site_ids ?? null }])),
  };
}

const endpointsAtRevision = preparedQuery((db, tenant: Tenant) =>
  db
    .selectFrom('webhook_revision')
    .leftJoin(endpoints(db, tenant).select(['endpoint_id', 'events', 'site_ids']).where('status', '=', 'enabled').as('enabled'), (join) => join.onTrue())
    .select(['webhook_revision.revision', 'enabled.endpoint_id', 'enabled.events', 'enabled.site_ids'])
    .where('webhook_revision.id', '=', 1),
);

export async function insertJobs(db: Executor, jobs: WebhookJobRow[]): Promise<void> {
  await db.insertInto('webhook_jobs').values(jobs).execute();
}

/**
 * PostgreSQL, a part of a larger statement (the SOSs of one transaction, incidents/store.ts):
 * inserts `jobs`, a JSON array of job rows (`newJob`'s), whose event the WITH query named
 * `eventQuery` returned; a job whose event it did not return is not inserted. JSON, so one
 * statement text serves any number of events and destinations.
 */
export const jobsForEventsOf = (eventQuery: string, jobs: string) =>
  sql`insert into webhook_jobs (job_id, endpoint_id, event_id, state, attempts, next_attempt_at, locked_until, created_at)
select j.job_id, j.endpoint_id, j.event_id, j.state, j.attempts, j.next_attempt_at, j.locked_until, j.created_at
from json_populate_recordset(null::webhook_jobs, ${jobs}::json) as j
where j.event_id in (select event_id from ${sql.table(eventQuery)})`;

/** A deleted endpoint gets nothing more: its deliveries still waiting are cancelled. */
export async function cancelPendingJobs(db: Executor, endpointId: string): Promise<void> {
  await db.updateTable('webhook_jobs').set({ state: 'cancelled' }).where('endpoint_id', '=', endpointId).where('state', '=', 'pending').execute();
}

/** Cancels one claimed job (its endpoint went away) and lets go of its lease. */
export async function cancelJob(db: Executor, jobId: string): Promise<void> {
  await db.updateTable('webhook_jobs').set({ state: 'cancelled', locked_until: null }).where('job_id', '=', jobId).execute();
}

/**
 * Takes up to `limit` due jobs for `leaseMs`. On PostgreSQL the rows are locked with SKIP LOCKED,
 * so two hosts never take the same job; SQLite has one writer at a time anyway.
 */
export async function claimDueJobs(db: Executor, engine: 'sqlite' | 'postgres', now: string, leaseUntil: string, limit: number): Promise<WebhookJobRow[]> {
  let due = db
    .selectFrom('webhook_jobs')
    .select('job_id')
    .where('state', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
    .orderBy('next_attempt_at')
    .limit(limit);
  if (engine === 'postgres') due = due.forUpdate().skipLocked();
  return db
    .updateTable('webhook_jobs')
    .set({ locked_until: leaseUntil })
    .where('job_id', 'in', due)
    .returningAll()
    .execute();
}

/** Records an attempt and moves its job on, together: every attempt counted is an attempt listed. */
export async function finishAttempt(db: Executor, job: WebhookJobRow, changes: Partial<WebhookJobRow>, delivery: WebhookDeliveryRow): Promise<void> {
  await inTransaction(db, async (trx) => {
    await trx.updateTable('webhook_jobs').set({ ...changes, locked_until: null }).where('job_id', '=', job.job_id).execute();
    await trx.insertInto('webhook_deliveries').values(delivery).execute();
  });
}

/** An endpoint's attempts, newest first: the cursor seeks `webhook_deliveries_by_endpoint` (0003). */
const DELIVERY_ORDER: ListOrder = { name: 'webhook_deliveries', kind: 'keyset', column: 'attempted_at', id: 'delivery_id', direction: 'desc' };

const DELIVERY_ROLLUP: Rollup = { table: 'delivery_tallies', dims: ['status'] };

/** Each attempt is a row that never changes: tallied per endpoint by day as soon as the fold runs (server/db/tallies.ts). */
export const DELIVERY_TALLY: TallySpec = {
  name: 'deliveries',
  lockKey: 7,
  table: 'webhook_deliveries',
  id: 'delivery_id',
  dayColumn: 'attempted_at',
  scope: ['endpoint_id'],
  settled: sql<boolean>`1 = 1`,
  rollups: [DELIVERY_ROLLUP],
};

function filteredDeliveries(db: Executor, endpointId: string, filter: { eventId?: string; status?: string }) {
  let base = db.selectFrom('webhook_deliveries').where('endpoint_id', '=', endpointId);
  if (filter.eventId) base = base.where('event_id', '=', filter.eventId);
  if (filter.status) base = base.where('status', '=', filter.status);
  return base;
}

export async function listDeliveryRows(db: Executor, endpointId: string, filter: { eventId?: string; status?: string }, page: PageRequest) {
  return pagedRows(filteredDeliveries(db, endpointId, filter).selectAll(), DELIVERY_ORDER, page, { skip: tallySkip(db, deliveryTally(endpointId, filter)) });
}

/** How the attempts listed are counted (total, deep pages): one event's on its index, the rest from the tallies. */
function deliveryTally(endpointId: string, filter: { eventId?: string; status?: string }): ListTally {
  return { spec: DELIVERY_TALLY, rollup: DELIVERY_ROLLUP, filter: { scope: { endpoint_id: endpointId }, equals: filter.status ? { status: filter.status } : {} }, narrowed: filter.eventId };
}

/** How many attempts match (`deliveryTally`). */
export async function countDeliveries(db: Executor, endpointId: string, filter: { eventId?: string; status?: string }): Promise<Total> {
  return listTotal(db, () => filteredDeliveries(db, endpointId, filter), deliveryTally(endpointId, filter));
}

/** The outbox for metrics: jobs waiting (`pending`), failing and still retrying (`retrying`), and given up (`failed`). */
export async function outboxCounts(db: Executor): Promise<{ pending: number; retrying: number; failed: number }> {
  const rows = await db
    .selectFrom('webhook_jobs')
    .select((eb) => [
      'state',
      eb.fn.countAll<number>().as('n'),
      eb.fn.count<number>(eb.case().when('attempts', '>', 0).then(1).end()).as('retrying'),
    ])
    .where('state', 'in', ['pending', 'failed'])
    .groupBy('state')
    .execute();
  const pending = rows.find((row) => row.state === 'pending');
  const failed = rows.find((row) => row.state === 'failed');
  return { pending: pending?.n ?? 0, retrying: pending?.retrying ?? 0, failed: failed?.n ?? 0 };
}

/** The events whose delivery to the endpoint failed in [from, to), each once. */
export async function failedEventIds(db: Executor, endpointId: string, from: string, to: string): Promise<string[]> {
  const rows = await db
    .selectFrom('webhook_deliveries')
    .select('event_id')
    .distinct()
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'failed')
    .where('attempted_at', '>=', from)
    .where('attempted_at', '<', to)
    .limit(10_000)
    .execute();
  return rows.map((row) => row.event_id);
}

/** Marks every live endpoint's secret for rotation (server/secrets/legacy-key.ts); answers how many. */
export async function markSecretsForRotation(db: Executor, at: string): Promise<number> {
  const result = await db
    .updateTable('webhook_endpoints')
    .set({ secret_rotation_due: 1, updated_at: at })
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
