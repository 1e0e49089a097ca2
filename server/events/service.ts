import { mayReadEventType, missingReadScope, readableEventTypes } from '../../shared/schemas/event-scopes.ts';
import type { WEBHOOK_EVENT_TYPES } from '../../shared/schemas/webhooks.ts';
import type { Clock } from '../clock.ts';
import type { EventRow, Executor, Tenant, WebhookJobRow } from '../db/schema.ts';
import { ApiError, notFound } from '../http/errors.ts';
import type { PageRequest } from '../db/paged.ts';
import { toPage, utcInstant } from '../http/pagination.ts';
import { newId } from '../ids.ts';
import { cachedDestinations, deliveriesInserted, deliveriesOf, freshDestinations, queueDeliveries, type WebhookQueue } from '../webhooks/queue.ts';
import { eventDataAbout, findEvent, findEventById, findEvents, insertEvents, insertEventsAtWebhookRevision, insertTestEvent, countEvents, listEventRows, replaceEventData } from './store.ts';

/** The event insert as a part of another store's statement (an SOS's opening, incidents/store.ts). */
export { eventsAtRevisionAfter } from './store.ts';

/** The reference's event types: one list, in shared/, for the server, the OpenAPI document and clients. */
export type EventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export interface NewEvent {
  organizationId: string;
  environment: string;
  type: EventType;
  resourceId: string;
  data: unknown;
}

/** What writing an event takes: the time, and the app's webhook queue its deliveries go through. */
export interface EventDeps {
  clock: Clock;
  webhookQueue: WebhookQueue;
}

export interface EventQuery extends PageRequest {
  type?: string;
  resource_id?: string;
  from_date?: string;
  to_date?: string;
  include_test?: boolean;
}

/** The envelope GET /events lists and webhooks deliver. */
export const rowToEvent = (row: EventRow) => ({
  id: row.event_id,
  type: row.type,
  created_at: row.created_at,
  ...(row.test === 1 && { test: true as const }),
  data: JSON.parse(row.data) as Record<string, unknown>,
});

/**
 * A test event of `type` with sample data, stored (so its deliveries are recorded) and marked
 * `test`; it goes to no endpoint by itself: the caller queues it for the one it tests.
 */
export async function appendTestEvent(db: Executor, clock: Clock, tenant: Tenant, type: EventType, data: Record<string, unknown>) {
  const at = clock.now();
  const row: EventRow = {
    event_id: newId('evt', at),
    organization_id: tenant.organizationId,
    environment: tenant.environment,
    type,
    resource_id: String(Object.values(data)[0] ?? 'test'),
    data: JSON.stringify(data),
    created_at: at.toISOString(),
    test: 1,
  };
  await insertTestEvent(db, row);
  return rowToEvent(row);
}

/** An event's row under a fresh id, made at `at`. */
function eventRowOf(event: NewEvent, at: Date): EventRow {
  return {
    event_id: newId('evt', at),
    organization_id: event.organizationId,
    environment: event.environment,
    type: event.type,
    resource_id: event.resourceId,
    data: JSON.stringify(event.data),
    created_at: at.toISOString(),
    site_id: siteOfData(event.data),
  };
}

/** The site of the resource an event reports (`data.site_id`), kept beside it so callers limited to sites read only theirs. */
function siteOfData(data: unknown): string | null {
  const siteId = typeof data === 'object' && data !== null ? (data as { site_id?: unknown }).site_id : undefined;
  return typeof siteId === 'string' ? siteId : null;
}

/**
 * Appends to the event log, and queues its webhook deliveries. Call it with the transaction
 * that makes the change it reports (the transactional outbox): an event and its deliveries
 * exist exactly when the change does.
 *
 * The event's destinations come from the app's cache when the insert, in the same
 * statement, finds the webhook revision unchanged since they were read (webhooks/queue.ts);
 * otherwise the event is inserted and the endpoints read afresh. Either way the deliveries are
 * those of the endpoints as the event's statement found them, with no extra round trip while
 * no endpoint changes.
 */
export async function appendEvent(trx: Executor, deps: EventDeps, event: NewEvent): Promise<string> {
  return (await appendEvents(trx, deps, [event]))[0]!;
}

/**
 * appendEvent for several events of one tenant about one change (a validation's check-in and
 * its code's use), in this order, written by one statement.
 */
export async function appendEvents(trx: Executor, { clock, webhookQueue }: EventDeps, events: readonly NewEvent[]): Promise<string[]> {
  const tenant = events[0]!;
  if (events.some((event) => event.organizationId !== tenant.organizationId || event.environment !== tenant.environment)) {
    throw new Error('appendEvents: events of one tenant only');
  }
  const at = clock.now();
  const rows = events.map((event) => eventRowOf(event, at));
  const destinations = cachedDestinations(webhookQueue, tenant);
  if (destinations && (await insertEventsAtWebhookRevision(trx, rows, destinations.revision))) {
    await queueDeliveries(trx, webhookQueue, destinations, rows.map(queuedEventOf));
  } else {
    await insertWithFreshDestinations(trx, webhookQueue, tenant, rows);
  }
  return rows.map((row) => row.event_id);
}

const queuedEventOf = (row: EventRow) => ({ eventId: row.event_id, type: row.type, at: row.created_at, siteId: row.site_id ?? null });

/**
 * The events when the cached destinations could not be used (none cached, or an endpoint changed
 * since): inserted, and their deliveries those of the endpoints read afresh in this transaction.
 */
async function insertWithFreshDestinations(trx: Executor, webhookQueue: WebhookQueue, tenant: Tenant, rows: readonly EventRow[]): Promise<void> {
  await insertEvents(trx, rows);
  const destinations = await freshDestinations(trx, webhookQueue, tenant);
  await queueDeliveries(trx, webhookQueue, destinations, rows.map(queuedEventOf));
}

/**
 * An event a caller writes within a statement of its own (an SOS's opening on PostgreSQL,
 * incidents/store.ts), with the deliveries its cached destinations make: the statement inserts
 * the event only while the webhook revision still reads `webhookRevision` (-1 when nothing is
 * cached: never), and the deliveries only with it. `completePlannedEvent` then finishes it.
 */
export interface PlannedEvent {
  row: EventRow;
  webhookRevision: number;
  deliveries: WebhookJobRow[];
}

export function planEvent({ clock, webhookQueue }: EventDeps, event: NewEvent): PlannedEvent {
  const row = eventRowOf(event, clock.now());
  const destinations = cachedDestinations(webhookQueue, event);
  return {
    row,
    webhookRevision: destinations?.revision ?? -1,
    deliveries: destinations ? deliveriesOf(destinations, [queuedEventOf(row)]) : [],
  };
}

/**
 * After the caller's statement, in its transaction: `written` says whether it inserted the
 * planned event (and so its deliveries). If not (an endpoint changed, or nothing was cached),
 * the event is inserted here and its deliveries are those of the endpoints read afresh, as
 * appendEvents does.
 */
export async function completePlannedEvent(trx: Executor, { webhookQueue }: EventDeps, planned: PlannedEvent, written: boolean): Promise<void> {
  if (written) {
    deliveriesInserted(webhookQueue, planned.deliveries);
    return;
  }
  const { row } = planned;
  await insertWithFreshDestinations(trx, webhookQueue, { organizationId: row.organization_id, environment: row.environment }, [row]);
}

/** Fields of event payloads that name or reach a visitor. */
const VISITOR_FIELDS = ['visitor_name', 'visitor_phone', 'visitor_email'] as const;

/**
 * Blanks the visitor's name, phone and email in every event about `resourceId`, so erasing a
 * visit or code under a retention policy leaves no copy in the event log.
 */
export async function scrubVisitorDataFromEvents(trx: Executor, resourceId: string): Promise<void> {
  for (const row of await eventDataAbout(trx, resourceId)) {
    const data = JSON.parse(row.data) as Record<string, unknown>;
    if (typeof data !== 'object' || data === null) continue;
    for (const field of VISITOR_FIELDS) if (field in data) data[field] = null;
    await replaceEventData(trx, row.event_id, JSON.stringify(data));
  }
}

/**
 * 403 naming the scope when a caller may not read every event type these types or wildcards
 * cover (shared/schemas/event-scopes.ts): to subscribe an endpoint, or to ask the log for them.
 */
export function requireEventReadScopes(scopes: ReadonlySet<string>, patterns: readonly string[]): void {
  const missing = missingReadScope(scopes, patterns);
  if (missing) throw new ApiError(403, `This API key lacks the ${missing.scope} scope, which ${missing.pattern} events need`);
}

/** The event log, newest first: what a webhook receiver that was down can recover. Only the types `scopes` may read. */
export async function listEvents(db: Executor, tenant: Tenant, scopes: ReadonlySet<string>, query: EventQuery) {
  if (query.type) requireEventReadScopes(scopes, [query.type]);
  const filter = {
    types: readableEventTypes(scopes, query.type),
    resourceId: query.resource_id,
    createdFrom: utcInstant(query.from_date),
    createdBefore: utcInstant(query.to_date),
    includeTest: query.include_test,
  };
  const [paged, total] = await Promise.all([listEventRows(db, tenant, filter, query), countEvents(db, tenant, filter)]);
  return toPage(paged.rows.map(rowToEvent), total, paged, query.limit);
}

/** One event; a type `scopes` may not read is a 404, as another tenant's event is. */
export async function getEvent(db: Executor, tenant: Tenant, scopes: ReadonlySet<string>, eventId: string) {
  const row = await findEvent(db, tenant, eventId);
  if (!row || !mayReadEventType(scopes, row.type)) throw notFound('Event');
  return rowToEvent(row);
}

/**
 * The envelopes of these events as delivered, by id, for those `scopes` may read: the
 * deliveries list shows a payload on the same rule as GET /events.
 */
export async function readableEventsById(db: Executor, tenant: Tenant, scopes: ReadonlySet<string>, eventIds: readonly string[]) {
  const rows = await findEvents(db, tenant, [...new Set(eventIds)]);
  return new Map(rows.filter((row) => mayReadEventType(scopes, row.type)).map((row) => [row.event_id, rowToEvent(row)]));
}

/** An event as its deliveries are decided by (webhooks/queue.ts, `receptionOf`). */
export interface DeliverableEvent {
  eventId: string;
  type: string;
  siteId: string | null;
  /** A test event (sample data, sent to the one endpoint it tests). */
  test: boolean;
}

/**
 * These events of the tenant within the caller's sites, those `scopes` may read, as their
 * deliveries are decided: what a resend by hand sends again by the rule live deliveries follow.
 */
export async function deliverableEvents(db: Executor, tenant: Tenant, scopes: ReadonlySet<string>, eventIds: readonly string[]): Promise<Map<string, DeliverableEvent>> {
  const rows = await findEvents(db, tenant, [...new Set(eventIds)]);
  return new Map(
    rows.filter((row) => mayReadEventType(scopes, row.type)).map((row) => [row.event_id, { eventId: row.event_id, type: row.type, siteId: row.site_id ?? null, test: row.test === 1 }]),
  );
}

/** An event as stored (its data is still the JSON text), found by id alone: for the webhook worker. */
export async function storedEvent(db: Executor, eventId: string): Promise<EventRow | undefined> {
  return findEventById(db, eventId);
}

/** The event log's tallies (server/db/tallies.ts), folded in the background. */
export { EVENT_TALLY } from './store.ts';
