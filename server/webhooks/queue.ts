import { subscribes } from '../../shared/schemas/webhooks.ts';
import type { Executor, Tenant, WebhookJobRow } from '../db/schema.ts';
import { newId } from '../ids.ts';
import { enabledEndpointSubscriptions, insertJobs } from './store.ts';

/**
 * Queues a delivery of the event to every enabled endpoint of its tenant that subscribes to its
 * type. Called by appendEvent inside the transaction that writes the event: a delivery exists
 * exactly when its event does, and survives a crash between the change and the send.
 */
export async function queueDeliveries(trx: Executor, tenant: Tenant, eventId: string, type: string, at: string): Promise<void> {
  const targets = await enabledEndpointSubscriptions(trx, tenant);
  await insertJobs(
    trx,
    targets.filter((endpoint) => subscribes(JSON.parse(endpoint.events) as string[], type)).map((endpoint) => newJob(endpoint.endpoint_id, eventId, at)),
  );
}

/** A delivery of one event to one endpoint, due now, with all its attempts ahead. */
export function newJob(endpointId: string, eventId: string, at: string): WebhookJobRow {
  return { job_id: newId('whj'), endpoint_id: endpointId, event_id: eventId, state: 'pending', attempts: 0, next_attempt_at: at, locked_until: null, created_at: at };
}
