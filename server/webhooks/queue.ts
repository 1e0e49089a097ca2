import { subscribes } from '../../shared/schemas/webhooks.ts';
import type { Executor, Tenant, WebhookEndpointRow, WebhookJobRow } from '../db/schema.ts';
import { setNewest } from '../bounded-map.ts';
import { newId } from '../ids.ts';
import { parseSiteIds, reachesSite } from '../db/tenant.ts';
import { enabledEndpointsAtRevision, insertJobs } from './store.ts';

/** Where a tenant's events go: its enabled endpoints, as read at one webhook revision (migration 0015). */
export interface Destinations {
  revision: number;
  endpoints: Pick<WebhookEndpointRow, 'endpoint_id' | 'events' | 'site_ids'>[];
}

/** The deliveries insert as a part of another store's statement (an SOS's opening, incidents/store.ts). */
export { jobsForEventsOf } from './store.ts';

const CAPACITY = 10_000;

/**
 * What an app keeps about its webhook deliveries, made with the app (server.ts, one per
 * database it serves) and passed to whatever writes events or deliveries: never module state
 * shared by every app in the process.
 */
export interface WebhookQueue {
  /**
   * The destinations cache, by tenant. An entry is only ever used by an event INSERT that
   * checks, in the same statement, that the revision has not moved (events/store.ts,
   * insertEventsAtWebhookRevision): an endpoint added, disabled or deleted anywhere, by any host
   * or the CLI, is seen by the next event exactly as if the endpoints had been read, and reading
   * them costs no round trip while nothing changed.
   */
  readonly destinations: Map<string, Destinations>;
  /** Job inserts this app has made, committed or not: what `deliveriesSince` compares. */
  jobsInserted: number;
}

export function createWebhookQueue(): WebhookQueue {
  return { destinations: new Map(), jobsInserted: 0 };
}

const tenantKey = (tenant: Tenant) => `${tenant.organizationId}\n${tenant.environment}`;

/** The tenant's destinations as last read by this app, if any: to be checked by the event's insert. */
export function cachedDestinations(queue: WebhookQueue, tenant: Tenant): Destinations | undefined {
  return queue.destinations.get(tenantKey(tenant));
}

/** Reads the tenant's destinations (one statement) and keeps them for the next event. */
export async function freshDestinations(trx: Executor, queue: WebhookQueue, tenant: Tenant): Promise<Destinations> {
  const destinations = await enabledEndpointsAtRevision(trx, tenant);
  setNewest(queue.destinations, tenantKey(tenant), destinations, CAPACITY);
  return destinations;
}

/**
 * Whether anything this process did between two moments queued a delivery: `deliveriesSince()`
 * at the first, and the function it returns at the second. A write request that queued one
 * reads true once it has answered (after its commit) and wakes the worker; one that queued
 * nothing (no endpoint subscribes) costs the worker no pass. True also when another request
 * queued in between: a wake too many is harmless, one too few is not.
 */
export function deliveriesSince(queue: WebhookQueue): () => boolean {
  const before = queue.jobsInserted;
  return () => queue.jobsInserted !== before;
}

/** Inserts deliveries (none: nothing), counted for `deliveriesSince`. */
export async function queueJobs(db: Executor, queue: WebhookQueue, jobs: WebhookJobRow[]): Promise<void> {
  if (!jobs.length) return;
  await insertJobs(db, jobs);
  queue.jobsInserted++;
}

/** An event as its deliveries need it. */
export interface QueuedEvent {
  eventId: string;
  type: string;
  at: string;
  /** The site of what it reports (null: none): an endpoint limited to sites gets only theirs. */
  siteId: string | null;
}

/**
 * Queues a delivery of each event to every destination that subscribes to its type (one
 * statement for all, none when nobody subscribes). Called by appendEvents inside the
 * transaction that writes the events: a delivery exists exactly when its event does, and
 * survives a crash between the change and the send.
 */
export async function queueDeliveries(trx: Executor, queue: WebhookQueue, destinations: Destinations, events: readonly QueuedEvent[]): Promise<void> {
  await queueJobs(trx, queue, deliveriesOf(destinations, events));
}

/** A delivery of each event to every destination that receives it (`receives`). */
export function deliveriesOf(destinations: Destinations, events: readonly QueuedEvent[]): WebhookJobRow[] {
  return events.flatMap((event) => destinations.endpoints.filter((endpoint) => receives(endpoint, event)).map((endpoint) => newJob(endpoint.endpoint_id, event.eventId, event.at)));
}

/** What an endpoint is sent, as far as its subscriptions and sites decide it. */
export type Reception = 'received' | 'not_subscribed' | 'beyond_its_sites';

/**
 * Whether an endpoint receives an event: it subscribes to the event's type and reaches the
 * event's site (an endpoint limited to sites gets only theirs, and none about no site). The one
 * rule for live deliveries and for resends by hand (webhooks/service.ts).
 */
export function receptionOf(endpoint: Pick<WebhookEndpointRow, 'events' | 'site_ids'>, event: Pick<QueuedEvent, 'type' | 'siteId'>): Reception {
  if (!subscribes(JSON.parse(endpoint.events) as string[], event.type)) return 'not_subscribed';
  if (!reachesSite(parseSiteIds(endpoint.site_ids), event.siteId, 'organization')) return 'beyond_its_sites';
  return 'received';
}

export const receives = (endpoint: Pick<WebhookEndpointRow, 'events' | 'site_ids'>, event: Pick<QueuedEvent, 'type' | 'siteId'>): boolean => receptionOf(endpoint, event) === 'received';

/** Deliveries a caller's own statement inserted (an SOS's opening statement), counted for `deliveriesSince`. */
export function deliveriesInserted(queue: WebhookQueue, jobs: readonly WebhookJobRow[]): void {
  if (jobs.length) queue.jobsInserted++;
}

/** A delivery of one event to one endpoint, due now, with all its attempts ahead. */
export function newJob(endpointId: string, eventId: string, at: string): WebhookJobRow {
  return { job_id: newId('whj'), endpoint_id: endpointId, event_id: eventId, state: 'pending', attempts: 0, next_attempt_at: at, locked_until: null, created_at: at };
}
