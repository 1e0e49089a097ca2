import type { WEBHOOK_EVENT_TYPES } from '../../shared/schemas/webhooks.ts';
import type { Clock } from '../clock.ts';
import type { Executor } from '../db/schema.ts';
import { newId } from '../ids.ts';
import { queueDeliveries } from '../webhooks/store.ts';

/** The reference's event types: one list, in shared/, for the server, the OpenAPI document and clients. */
export type EventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export interface NewEvent {
  organizationId: string;
  environment: string;
  type: EventType;
  resourceId: string;
  data: unknown;
}

/**
 * Appends to the event log, and queues its webhook deliveries. Call it with the transaction
 * that makes the change it reports (the transactional outbox): an event and its deliveries
 * exist exactly when the change does.
 */
export async function appendEvent(trx: Executor, clock: Clock, event: NewEvent): Promise<string> {
  const at = clock.now();
  const eventId = newId('evt', at);
  await trx
    .insertInto('events')
    .values({
      event_id: eventId,
      organization_id: event.organizationId,
      environment: event.environment,
      type: event.type,
      resource_id: event.resourceId,
      data: JSON.stringify(event.data),
      created_at: at.toISOString(),
    })
    .execute();
  await queueDeliveries(trx, event, eventId, event.type, at.toISOString());
  return eventId;
}

/** Fields of event payloads that name or reach a visitor. */
const VISITOR_FIELDS = ['visitor_name', 'visitor_phone', 'visitor_email'] as const;

/**
 * Blanks the visitor's name, phone and email in every event about `resourceId`, so erasing a
 * visit or code under a retention policy leaves no copy in the event log.
 */
export async function scrubVisitorDataFromEvents(trx: Executor, resourceId: string): Promise<void> {
  const rows = await trx.selectFrom('events').select(['event_id', 'data']).where('resource_id', '=', resourceId).execute();
  for (const row of rows) {
    const data = JSON.parse(row.data) as Record<string, unknown>;
    if (typeof data !== 'object' || data === null) continue;
    for (const field of VISITOR_FIELDS) if (field in data) data[field] = null;
    await trx.updateTable('events').set({ data: JSON.stringify(data) }).where('event_id', '=', row.event_id).execute();
  }
}
