import { z } from 'zod';
import { DateRangeQuery, PageQuery, Timestamp, TimestampInput, paginated, nullMeansAbsent } from './common.ts';

export const WEBHOOK_EVENT_TYPES = [
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
  'kiosk.offline',
  'kiosk.online',
] as const;
export const WEBHOOK_WILDCARDS = ['incident.*', 'access_code.*', 'visitor.*', 'kiosk.*', '*'] as const;
export const EventType = z.enum(WEBHOOK_EVENT_TYPES).meta({ id: 'EventType' });
export const EventSubscription = z.enum([...WEBHOOK_EVENT_TYPES, ...WEBHOOK_WILDCARDS]).meta({
  id: 'EventSubscription',
  description: 'An exact event type, or a wildcard: `incident.*`, `access_code.*`, `visitor.*`, `kiosk.*`, `*`',
});

export function subscribes(subscriptions: readonly string[], type: string): boolean {
  return subscriptions.some((s) => s === '*' || s === type || (s.endsWith('.*') && type.startsWith(s.slice(0, -1))));
}

export const WebhookEndpoint = z
  .object({
    endpoint_id: z.string().meta({ example: 'whe_01JD7ZK3Q0C7W5N2Y8S4V6X9AB' }),
    url: z.string(),
    description: z.string().nullable(),
    events: z.array(EventSubscription),
    status: z.enum(['enabled', 'disabled']),
    environment: z.enum(['live', 'sandbox']),
    secret_rotated_at: Timestamp.nullable(),
    previous_secret_expires_at: Timestamp.nullable().meta({ description: 'Until then deliveries carry a v1 signature with the old secret too' }),
    secret_rotation_due: z.boolean().meta({
      description:
        'True when the secret may be known outside this service (it was sealed while the sealing key was kept in the database, so an old backup opens it): rotate it. Rotating sets it false.',
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'WebhookEndpoint' });
export type WebhookEndpoint = z.infer<typeof WebhookEndpoint>;

const Url = z.url({ protocol: /^https?$/ }).max(2048);

export const CreateWebhookEndpointRequest = nullMeansAbsent(z.strictObject({
    url: Url.meta({ description: 'Live: https, public address only. Sandbox: http too; loopback or private addresses only where the operator allows it (WEBHOOK_ALLOW_PRIVATE).' }),
    events: z.array(EventSubscription).min(1).max(32),
    description: z.string().trim().max(500).optional(),
  }))
  .meta({ id: 'CreateWebhookEndpointRequest' });

export const UpdateWebhookEndpointRequest = nullMeansAbsent(z.strictObject({
    url: Url.optional(),
    events: z.array(EventSubscription).min(1).max(32).optional(),
    description: z.string().trim().max(500).nullable().optional(),
    status: z.enum(['enabled', 'disabled']).optional(),
  }))
  .meta({ id: 'UpdateWebhookEndpointRequest' });

export const CreatedWebhookEndpoint = z
  .object({ webhook_endpoint: WebhookEndpoint, secret: z.string().meta({ description: '`whsec_...`, shown once' }) })
  .meta({ id: 'CreatedWebhookEndpoint' });
export const WebhookEndpointEnvelope = z.object({ webhook_endpoint: WebhookEndpoint }).meta({ id: 'WebhookEndpointResponse' });
export const WebhookEndpointPage = paginated(WebhookEndpoint, 'WebhookEndpointPage');
export const EndpointIdParams = z.object({ endpointId: z.string() });
export const RotateSecretRequest = nullMeansAbsent(z.strictObject({
    expires_in_hours: z
      .int()
      .min(0)
      .max(168)
      .default(24)
      .meta({ description: 'How long the old secret keeps signing too (0: at once)' }),
  }))
  .meta({ id: 'RotateSecretRequest' });

export const Event = z
  .object({
    id: z.string().meta({ example: 'evt_01JD7ZK3Q0C7W5N2Y8S4V6X9AB' }),
    type: EventType,
    created_at: Timestamp,
    test: z.literal(true).optional().meta({ description: 'Present on a test event sent with `POST /webhook-endpoints/{endpointId}/test`: sample data, no real resource' }),
    data: z.record(z.string(), z.unknown()).meta({ description: 'The REST representation of the resource (incident, access code, access log)' }),
  })
  .meta({ id: 'Event', description: 'The envelope every webhook delivers, and the event log lists' });
export const WebhookDelivery = z
  .object({
    delivery_id: z.string().meta({ example: 'whd_01JD7ZK3Q0C7W5N2Y8S4V6X9AB' }),
    endpoint_id: z.string(),
    event_id: z.string(),
    event_type: EventType,
    attempt: z.int().meta({ description: '1 for the first attempt of this event to this endpoint' }),
    status: z.enum(['succeeded', 'failed']),
    response_status: z.int().nullable(),
    response_excerpt: z.string().nullable().meta({ description: "The receiver's answer, its first 500 characters as text; null when there was none" }),
    error: z.string().nullable().meta({ description: 'timeout, connection refused, redirect not followed, address refused...' }),
    duration_ms: z.int(),
    attempted_at: Timestamp,
    next_attempt_at: Timestamp.nullable().meta({ description: 'When it will be tried again; null when delivered, or failed for good (72 h after the event)' }),
    payload: Event.nullable().meta({
      description: 'The envelope delivered; null when the key lacks the read scope for the event type (the rule of GET /events)',
    }),
  })
  .meta({ id: 'WebhookDelivery' });
export const WebhookDeliveryPage = paginated(WebhookDelivery, 'WebhookDeliveryPage');
export const ListDeliveriesQuery = PageQuery.extend({
  event_id: z.string().max(64).optional(),
  status: z.enum(['succeeded', 'failed']).optional(),
});
export const ResendRequest = nullMeansAbsent(z.strictObject({ event_id: z.string().min(1).max(64) })).meta({ id: 'ResendEventRequest' });

export const EventPage = paginated(Event, 'EventPage');
export const ListEventsQuery = PageQuery.extend({
  type: z.union([EventType, z.enum(['incident.*', 'access_code.*', 'visitor.*', 'kiosk.*'])]).optional(),
  resource_id: z.string().max(64).optional().meta({ description: 'Events about one incident, code or visit' }),
  include_test: z
    .enum(['true', 'false'])
    .transform((value) => value === 'true')
    .optional()
    .meta({ description: 'Test events too (sent with `POST /webhook-endpoints/{endpointId}/test`); left out by default' }),
}).extend(DateRangeQuery.shape);

export const TestEventRequest = z.strictObject({ type: EventType }).meta({ id: 'TestEventRequest' });
export const ResendFailedRequest = z
  .strictObject({ from: TimestampInput, to: TimestampInput })
  .refine((body) => body.from < body.to, { message: 'must be after from', path: ['to'] })
  .meta({ id: 'ResendFailedRequest' });
