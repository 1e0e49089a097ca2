import { z } from 'zod';
import { DateRangeQuery, PageQuery, SiteLimit, SiteLimitInput, Timestamp, TimestampInput, paginated, nullMeansAbsent } from './common.ts';

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
  'incident.note_added',
  'incident.responder_location',
  'incident.offer_declined',
  'incident.control_taken',
  'incident.control_offered',
  'incident.control_reassigned',
  'incident.control_stood_down',
  'incident.control_note',
  'incident.control_closed',
  'incident.control_alert',
  'visitor.excess_use',
] as const;
/**
 * Types beyond the reference's that a webhook endpoint receives only when it names them exactly,
 * never through `incident.*` or `*`: partners subscribed to a wildcard keep receiving exactly the
 * reference's types. `GET /events` and the event stream show them like any other type.
 */
export const EXACT_NAME_EVENT_TYPES: readonly string[] = [
  'incident.note_added',
  'incident.responder_location',
  'incident.offer_declined',
  'incident.control_taken',
  'incident.control_offered',
  'incident.control_reassigned',
  'incident.control_stood_down',
  'incident.control_note',
  'incident.control_closed',
  'incident.control_alert',
  'visitor.excess_use',
];
export const WEBHOOK_WILDCARDS = ['incident.*', 'access_code.*', 'visitor.*', 'kiosk.*', '*'] as const;
export const EventType = z.enum(WEBHOOK_EVENT_TYPES).meta({ id: 'EventType' });
export const EventSubscription = z.enum([...WEBHOOK_EVENT_TYPES, ...WEBHOOK_WILDCARDS]).meta({
  id: 'EventSubscription',
  description: 'An exact event type, or a wildcard: `incident.*`, `access_code.*`, `visitor.*`, `kiosk.*`, `*`',
});

/** Whether a type or wildcard (`incident.*`, `*`) covers `type`, every type of the family included: the rule of `GET /events` and the stream. */
export function coversType(pattern: string, type: string): boolean {
  return pattern === '*' || pattern === type || (pattern.endsWith('.*') && type.startsWith(pattern.slice(0, -1)));
}

/** Whether an endpoint with these subscriptions receives `type`: a wildcard never brings an exact-name type (EXACT_NAME_EVENT_TYPES). */
export function subscribes(subscriptions: readonly string[], type: string): boolean {
  const exactOnly = EXACT_NAME_EVENT_TYPES.includes(type);
  return subscriptions.some((s) => s === type || (!exactOnly && coversType(s, type)));
}

export const WebhookEndpoint = z
  .object({
    endpoint_id: z.string().meta({ example: 'whe_01JD7ZK3Q0C7W5N2Y8S4V6X9AB' }),
    url: z.string(),
    description: z.string().nullable(),
    events: z.array(EventSubscription),
    site_ids: SiteLimit.meta({ description: 'Only events about these sites are sent to it; null: every site, and events about none' }),
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
    site_ids: SiteLimitInput,
  }))
  .meta({ id: 'CreateWebhookEndpointRequest' });

export const UpdateWebhookEndpointRequest = nullMeansAbsent(z.strictObject({
    url: Url.optional(),
    events: z.array(EventSubscription).min(1).max(32).optional(),
    description: z.string().trim().max(500).nullable().optional(),
    status: z.enum(['enabled', 'disabled']).optional(),
    site_ids: z.array(z.string().trim().min(1).max(100)).min(1).max(100).nullable().optional().meta({ description: 'Replaces its sites (each one you reach); null: every site, for a caller who reaches them all' }),
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
    data: z.record(z.string(), z.unknown()).meta({
      description:
        'The REST representation of the resource (incident, access code, access log). `incident.note_added` adds `note` `{message, timestamp}`; `incident.responder_location` adds `responder_location` `{latitude, longitude, eta_minutes, reported_at}`; `incident.offer_declined` adds `declined` `{responder_name, reason, at}`; `incident.control_*` add `control` `{action, by, message, at}` (`by`: "Tsaro control (Kemi)")',
    }),
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
export const ListWebhookEndpointsQuery = PageQuery.extend({
  status: z.enum(['enabled', 'disabled']).optional().meta({ description: 'Only endpoints in this state' }),
});

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

const EVENT_FILTERS: readonly string[] = [...WEBHOOK_EVENT_TYPES, ...WEBHOOK_WILDCARDS];
export const EventStreamQuery = z.object({
  last_event_id: z.string().max(64).optional().meta({ description: 'As the `Last-Event-ID` header, for EventSource polyfills that cannot set it; the header wins' }),
  types: z
    .string()
    .max(1000)
    .transform((value) => value.split(',').map((type) => type.trim()).filter(Boolean))
    .refine((types) => types.every((type) => EVENT_FILTERS.includes(type)), { message: 'must be event types or wildcards (incident.*), separated by commas' })
    .optional()
    .meta({ description: 'Only these types or wildcards, separated by commas (`incident.*,visitor.arrived`); a wildcard covers its whole family here' }),
  include_test: z
    .enum(['true', 'false'])
    .transform((value) => value === 'true')
    .optional()
    .meta({ description: 'Test events too (sent with `POST /webhook-endpoints/{endpointId}/test`); left out by default' }),
});
export const EventStreamHeaders = z.object({
  'Last-Event-ID': z.string().max(64).optional().meta({ description: 'Resume after this event (its `id:`), up to 72 hours back; EventSource sends it by itself when it reconnects' }),
});
/** Extra data of `incident.note_added`, beside the incident. */
export const IncidentNote = z.object({ message: z.string(), timestamp: Timestamp }).meta({ id: 'IncidentNote' });
/** Extra data of `incident.responder_location`, beside the incident. */
export const ResponderLocation = z
  .object({
    latitude: z.number(),
    longitude: z.number(),
    eta_minutes: z.int().nullable().meta({ description: 'Estimated from the reported position (25 km/h over the great-circle distance); 0 on scene' }),
    reported_at: Timestamp,
  })
  .meta({ id: 'ResponderLocation' });
