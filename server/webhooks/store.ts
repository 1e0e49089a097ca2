import { subscribes } from '../../shared/schemas/webhooks.ts';
import { inTransaction, type Executor, type Tenant, type WebhookDeliveryRow, type WebhookEndpointRow, type WebhookJobRow } from '../db/schema.ts';
import { newId } from '../ids.ts';

const endpoints = (db: Executor, tenant: Tenant) =>
  db
    .selectFrom('webhook_endpoints')
    .where('organization_id', '=', tenant.organizationId)
    .where('environment', '=', tenant.environment)
    .where('deleted_at', 'is', null);

export async function insertEndpoint(db: Executor, row: WebhookEndpointRow): Promise<void> {
  await db.insertInto('webhook_endpoints').values(row).execute();
}

export async function findEndpoint(db: Executor, tenant: Tenant, endpointId: string): Promise<WebhookEndpointRow | undefined> {
  return endpoints(db, tenant).selectAll().where('endpoint_id', '=', endpointId).executeTakeFirst();
}

export async function findEndpointById(db: Executor, endpointId: string): Promise<WebhookEndpointRow | undefined> {
  return db.selectFrom('webhook_endpoints').selectAll().where('endpoint_id', '=', endpointId).executeTakeFirst();
}

export async function listEndpointRows(db: Executor, tenant: Tenant, page: { offset: number; limit: number }) {
  const [rows, count] = await Promise.all([
    endpoints(db, tenant).selectAll().orderBy('created_at', 'desc').orderBy('endpoint_id', 'desc').offset(page.offset).limit(page.limit).execute(),
    endpoints(db, tenant).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

export async function updateEndpoint(db: Executor, endpointId: string, changes: Partial<WebhookEndpointRow>): Promise<void> {
  await db.updateTable('webhook_endpoints').set(changes).where('endpoint_id', '=', endpointId).execute();
}

/**
 * Queues a delivery of the event to every enabled endpoint of its tenant that subscribes to its
 * type. Called by appendEvent inside the transaction that writes the event: a delivery exists
 * exactly when its event does, and survives a crash between the change and the send.
 */
export async function queueDeliveries(trx: Executor, tenant: Tenant, eventId: string, type: string, at: string): Promise<void> {
  const targets = await endpoints(trx, tenant).select(['endpoint_id', 'events']).where('status', '=', 'enabled').execute();
  const jobs = targets
    .filter((endpoint) => subscribes(JSON.parse(endpoint.events) as string[], type))
    .map((endpoint) => newJob(endpoint.endpoint_id, eventId, at));
  if (jobs.length) await trx.insertInto('webhook_jobs').values(jobs).execute();
}

/** A delivery of one event to one endpoint, due now, with all its attempts ahead. */
export function newJob(endpointId: string, eventId: string, at: string): WebhookJobRow {
  return { job_id: newId('whj'), endpoint_id: endpointId, event_id: eventId, state: 'pending', attempts: 0, next_attempt_at: at, locked_until: null, created_at: at };
}

export async function insertJob(db: Executor, job: WebhookJobRow): Promise<void> {
  await db.insertInto('webhook_jobs').values(job).execute();
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

export async function listDeliveryRows(
  db: Executor,
  endpointId: string,
  filter: { eventId?: string; status?: string },
  page: { offset: number; limit: number },
) {
  let base = db.selectFrom('webhook_deliveries').where('endpoint_id', '=', endpointId);
  if (filter.eventId) base = base.where('event_id', '=', filter.eventId);
  if (filter.status) base = base.where('status', '=', filter.status);
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('attempted_at', 'desc').orderBy('delivery_id', 'desc').offset(page.offset).limit(page.limit).execute(),
    base.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}
