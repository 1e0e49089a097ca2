import type { Clock } from '../clock.ts';
import type { Executor } from '../db/schema.ts';
import { newId } from '../ids.ts';

export const EVENT_TYPES = [
  'incident.created',
  'incident.updated',
  'incident.escalated',
  'incident.unresponsive',
  'incident.resolved',
  'incident.cancelled',
  'access_code.created',
  'access_code.used',
  'access_code.expired',
  'access_code.revoked',
  'visitor.arrived',
  'visitor.departed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface NewEvent {
  organizationId: string;
  environment: string;
  type: EventType;
  resourceId: string;
  data: unknown;
}

/**
 * Appends to the event log. Call it with the transaction that makes the change it reports:
 * the row is the transactional outbox webhook delivery reads, so an event exists exactly when
 * its change does.
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
  return eventId;
}
