import type { z } from 'zod';
import type { CreateWebhookEndpointRequest, UpdateWebhookEndpointRequest, WebhookEndpoint } from '../../shared/schemas/webhooks.ts';
import { randomBase62 } from '../auth/secrets.ts';
import type { Clock } from '../clock.ts';
import { inTransaction, type Executor, type Tenant, type WebhookEndpointRow } from '../db/schema.ts';
import { appendTestEvent, deliverableEvents, readableEventsById, requireEventReadScopes, type DeliverableEvent, type EventType } from '../events/service.ts';
import { conflict, notFound } from '../http/errors.ts';
import type { PageRequest } from '../db/paged.ts';
import { toPage } from '../http/pagination.ts';
import { newId } from '../ids.ts';
import { rowToWebhookEndpoint } from './endpoint.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import { newJob, queueJobs, receptionOf, type Reception, type WebhookQueue } from './queue.ts';
import { cancelPendingJobs, countDeliveries, failedEventIds, findEndpoint, insertEndpoint, listDeliveryRows, listEndpointRows, outboxCounts, updateEndpoint } from './store.ts';
import { sampleEventData } from './test-events.ts';

export interface WebhookDeps {
  clock: Clock;
  secretBox: SecretBox;
  /** Deliveries queued here are counted in it, so the request that queued them wakes the worker. */
  webhookQueue: WebhookQueue;
}

const newSecret = () => `whsec_${randomBase62(40)}`;

/**
 * Callers check the URL with `checkEndpointUrl` first, outside any transaction (the routes do,
 * in `urlChecked`): resolving a name can take seconds, and SQLite has one connection to hold.
 */
export async function createWebhookEndpoint(
  db: Executor,
  deps: WebhookDeps,
  tenant: Tenant,
  input: Omit<z.infer<typeof CreateWebhookEndpointRequest>, 'site_ids'> & { site_ids: readonly string[] | null },
  scopes: ReadonlySet<string>,
): Promise<{ webhook_endpoint: WebhookEndpoint; secret: string }> {
  requireEventReadScopes(scopes, input.events);
  const secret = newSecret();
  const at = deps.clock.now().toISOString();
  const row: WebhookEndpointRow = {
    endpoint_id: newId('whe', deps.clock.now()),
    organization_id: tenant.organizationId,
    environment: tenant.environment,
    url: input.url,
    description: input.description ?? null,
    events: JSON.stringify([...new Set(input.events)]),
    status: 'enabled',
    secret: deps.secretBox.seal(secret),
    previous_secret: null,
    previous_secret_expires_at: null,
    secret_rotated_at: null,
    secret_rotation_due: 0,
    created_at: at,
    updated_at: at,
    deleted_at: null,
    site_ids: input.site_ids ? JSON.stringify(input.site_ids) : null,
  };
  await insertEndpoint(db, row);
  return { webhook_endpoint: rowToWebhookEndpoint(row), secret };
}

async function endpointOf(db: Executor, tenant: Tenant, endpointId: string): Promise<WebhookEndpointRow> {
  const row = await findEndpoint(db, tenant, endpointId);
  if (!row) throw notFound('Webhook endpoint');
  return row;
}

export async function getWebhookEndpoint(db: Executor, tenant: Tenant, endpointId: string): Promise<WebhookEndpoint> {
  return rowToWebhookEndpoint(await endpointOf(db, tenant, endpointId));
}

export async function listWebhookEndpoints(db: Executor, tenant: Tenant, query: PageRequest & { status?: 'enabled' | 'disabled' }) {
  const paged = await listEndpointRows(db, tenant, { status: query.status }, query);
  return toPage(paged.rows.map(rowToWebhookEndpoint), paged.total, paged, query.limit);
}

export async function updateWebhookEndpoint(
  db: Executor,
  deps: WebhookDeps,
  tenant: Tenant,
  endpointId: string,
  input: Omit<z.infer<typeof UpdateWebhookEndpointRequest>, 'site_ids'> & { site_ids?: readonly string[] | null },
  scopes: ReadonlySet<string>,
): Promise<WebhookEndpoint> {
  const row = await endpointOf(db, tenant, endpointId);
  // New subscriptions, and a new URL or re-enabling (which send the kept ones somewhere), need
  // the read scopes of what the endpoint will receive. Disabling or a description does not.
  if (input.events !== undefined || input.url !== undefined || input.status === 'enabled') {
    requireEventReadScopes(scopes, input.events ?? (JSON.parse(row.events) as string[]));
  }
  await updateEndpoint(db, endpointId, {
    ...(input.url !== undefined && { url: input.url }),
    ...(input.events !== undefined && { events: JSON.stringify([...new Set(input.events)]) }),
    ...(input.description !== undefined && { description: input.description }),
    ...(input.status !== undefined && { status: input.status }),
    ...(input.site_ids !== undefined && { site_ids: input.site_ids && JSON.stringify(input.site_ids) }),
    updated_at: deps.clock.now().toISOString(),
  });
  return getWebhookEndpoint(db, tenant, endpointId);
}

/** Deleted endpoints get nothing more: their queued deliveries are cancelled with them. */
export async function deleteWebhookEndpoint(db: Executor, deps: WebhookDeps, tenant: Tenant, endpointId: string): Promise<WebhookEndpoint> {
  return inTransaction(db, async (trx) => {
    const row = await endpointOf(trx, tenant, endpointId);
    const at = deps.clock.now().toISOString();
    await updateEndpoint(trx, endpointId, { deleted_at: at, status: 'disabled', updated_at: at });
    await cancelPendingJobs(trx, endpointId);
    return rowToWebhookEndpoint({ ...row, status: 'disabled', updated_at: at });
  });
}

/**
 * A new secret, shown once. For `expiresInHours` the old one keeps signing too (a second `v1`
 * in Svc-Signature, as Stripe does), so the receiver can switch without losing an event.
 */
export async function rotateWebhookSecret(
  db: Executor,
  deps: WebhookDeps,
  tenant: Tenant,
  endpointId: string,
  expiresInHours: number,
): Promise<{ webhook_endpoint: WebhookEndpoint; secret: string }> {
  const row = await endpointOf(db, tenant, endpointId);
  const secret = newSecret();
  const now = deps.clock.now();
  await updateEndpoint(db, endpointId, {
    secret: deps.secretBox.seal(secret),
    previous_secret: expiresInHours > 0 ? row.secret : null,
    previous_secret_expires_at: expiresInHours > 0 ? new Date(now.getTime() + expiresInHours * 3_600_000).toISOString() : null,
    secret_rotated_at: now.toISOString(),
    secret_rotation_due: 0,
    updated_at: now.toISOString(),
  });
  return { webhook_endpoint: await getWebhookEndpoint(db, tenant, endpointId), secret };
}

export async function listWebhookDeliveries(
  db: Executor,
  tenant: Tenant,
  endpointId: string,
  query: PageRequest & { event_id?: string; status?: string },
  scopes: ReadonlySet<string>,
) {
  await endpointOf(db, tenant, endpointId);
  const filter = { eventId: query.event_id, status: query.status };
  const [paged, total] = await Promise.all([listDeliveryRows(db, endpointId, filter, query), countDeliveries(db, endpointId, filter)]);
  const payloads = await readableEventsById(db, tenant, scopes, paged.rows.map((row) => row.event_id));
  return toPage(
    paged.rows.map(({ job_id: _job, tallied: _tallied, ...delivery }) => ({
      ...delivery,
      attempt: Number(delivery.attempt),
      duration_ms: Number(delivery.duration_ms),
      payload: payloads.get(delivery.event_id) ?? null,
    })),
    total,
    paged,
    query.limit,
  );
}

/**
 * How a resend by hand goes: as live deliveries do (`receptionOf`), so a resend never sends an
 * endpoint what it would not have been sent; a test event (sample data) goes wherever it is
 * sent, as the test route sends it.
 */
const resentAs = (endpoint: WebhookEndpointRow, event: DeliverableEvent): Reception => (event.test ? 'received' : receptionOf(endpoint, event));

/**
 * Sends an event of this tenant to the endpoint again, as a new delivery with fresh attempts.
 * An event the endpoint does not receive (another type, another site) is a 409 naming `event_id`.
 */
export async function resendEvent(db: Executor, deps: WebhookDeps, tenant: Tenant, scopes: ReadonlySet<string>, endpointId: string, eventId: string) {
  const endpoint = await endpointOf(db, tenant, endpointId);
  // Another tenant's or site's event, or a type the key may not read, is a 404 like a missing one.
  const event = (await deliverableEvents(db, tenant, scopes, [eventId])).get(eventId);
  if (!event) throw notFound('Event');
  const reception = resentAs(endpoint, event);
  if (reception === 'not_subscribed') throw conflict(`event_id: ${eventId} is a ${event.type} event, and this endpoint is not subscribed to ${event.type}: live deliveries never send it there`);
  if (reception === 'beyond_its_sites') {
    throw conflict(`event_id: ${eventId} is about ${event.siteId ? `site ${event.siteId}` : 'no site'}, and this endpoint is limited to other sites: live deliveries never send it there`);
  }
  await queueJobs(db, deps.webhookQueue, [newJob(endpointId, eventId, deps.clock.now().toISOString())]);
  return { queued: true as const, endpoint_id: endpointId, event_id: eventId };
}

/**
 * A signed test event of `type` with sample data, to this endpoint only (`"test": true` in its
 * envelope): a developer sees their receiver answer without waiting for a real incident. Needs the
 * type's read scope, as subscribing does.
 */
export async function sendTestEvent(db: Executor, deps: WebhookDeps, tenant: Tenant, scopes: ReadonlySet<string>, endpointId: string, type: EventType) {
  requireEventReadScopes(scopes, [type]);
  await endpointOf(db, tenant, endpointId);
  const now = deps.clock.now();
  const event = await appendTestEvent(db, deps.clock, tenant, type, sampleEventData(type, tenant.environment as 'live' | 'sandbox', now) as unknown as Record<string, unknown>);
  await queueJobs(db, deps.webhookQueue, [newJob(endpointId, event.id, now.toISOString())]);
  return { event, queued: true as const };
}

/**
 * Every event whose delivery to this endpoint failed in [from, to) is sent again, once each: those
 * the key may read and the endpoint still receives (its subscriptions and sites may have changed since).
 */
export async function resendFailed(db: Executor, deps: WebhookDeps, tenant: Tenant, scopes: ReadonlySet<string>, endpointId: string, from: string, to: string) {
  const endpoint = await endpointOf(db, tenant, endpointId);
  const failed = await failedEventIds(db, endpointId, from, to);
  const events = await deliverableEvents(db, tenant, scopes, failed);
  const at = deps.clock.now().toISOString();
  const jobs = [...events.values()].filter((event) => resentAs(endpoint, event) === 'received').map((event) => newJob(endpointId, event.eventId, at));
  await queueJobs(db, deps.webhookQueue, jobs);
  return { queued: jobs.length };
}

/** The outbox for metrics: deliveries waiting, failing and still retrying, and given up. */
export async function webhookOutboxCounts(db: Executor) {
  return outboxCounts(db);
}

/** Every endpoint's secret marked for the partner to rotate (server/secrets/legacy-key.ts): a copy of the database may open it. */
export { markSecretsForRotation } from './store.ts';

/** The deliveries' tallies (server/db/tallies.ts), folded in the background. */
export { DELIVERY_TALLY } from './store.ts';
