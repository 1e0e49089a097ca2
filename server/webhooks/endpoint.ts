import { parseSiteIds } from '../db/tenant.ts';
import type { WebhookEndpoint } from '../../shared/schemas/webhooks.ts';
import type { WebhookEndpointRow } from '../db/schema.ts';

export function rowToWebhookEndpoint(row: WebhookEndpointRow): WebhookEndpoint {
  return {
    endpoint_id: row.endpoint_id,
    url: row.url,
    description: row.description,
    events: JSON.parse(row.events) as WebhookEndpoint['events'],
    site_ids: parseSiteIds(row.site_ids),
    status: row.status as WebhookEndpoint['status'],
    environment: row.environment as WebhookEndpoint['environment'],
    secret_rotated_at: row.secret_rotated_at,
    previous_secret_expires_at: row.previous_secret_expires_at,
    secret_rotation_due: row.secret_rotation_due === 1,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
