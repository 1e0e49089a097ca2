import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { PageQuery } from '../../shared/schemas/common.ts';
import {
  CreateWebhookEndpointRequest,
  CreatedWebhookEndpoint,
  EndpointIdParams,
  Event,
  EventPage,
  ListDeliveriesQuery,
  ListEventsQuery,
  ResendRequest,
  RotateSecretRequest,
  UpdateWebhookEndpointRequest,
  WebhookDeliveryPage,
  WebhookEndpointEnvelope,
  WebhookEndpointPage,
} from '../../shared/schemas/webhooks.ts';
import { errors, idempotencyHeader, json, ok } from '../docs/responses.ts';

const tags = ['Webhooks'];

const SIGNING = [
  'Each delivery is an HTTP POST of the envelope `{id, type, created_at, data}` (`data`: the REST resource) with headers',
  '`Svc-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>` (Stripe\'s scheme; one `v1` per valid secret during a rotation),',
  '`Svc-Event-Id` and `Svc-Event-Type`. Any 2xx within 10 s is success; redirects are not followed.',
  'A failed delivery is tried again at once, after 30 s and after 5 min. Receivers deduplicate by the envelope `id`.',
].join(' ');

export const webhookPaths: ZodOpenApiPathsObject = {
  '/webhook-endpoints': {
    post: {
      operationId: 'createWebhookEndpoint',
      tags,
      summary: 'Register a webhook endpoint',
      description: `Scope \`admin\`. The \`whsec_\` secret is in this answer only. Live endpoints: https, public addresses only (checked now and at every send). Sandbox endpoints may be http on loopback. ${SIGNING}`,
      parameters: [idempotencyHeader],
      requestBody: json(CreateWebhookEndpointRequest),
      responses: { ...ok(201, 'Registered', CreatedWebhookEndpoint), ...errors() },
    },
    get: {
      operationId: 'listWebhookEndpoints',
      tags,
      summary: 'List webhook endpoints',
      description: 'Scope `admin`. Secrets are never listed.',
      requestParams: { query: PageQuery },
      responses: { ...ok(200, 'One page', WebhookEndpointPage), ...errors() },
    },
  },
  '/webhook-endpoints/{endpointId}': {
    get: {
      operationId: 'getWebhookEndpoint',
      tags,
      summary: 'Get a webhook endpoint',
      description: 'Scope `admin`.',
      requestParams: { path: EndpointIdParams },
      responses: { ...ok(200, 'The endpoint', WebhookEndpointEnvelope), ...errors(404) },
    },
    patch: {
      operationId: 'updateWebhookEndpoint',
      tags,
      summary: 'Change URL, subscriptions or description; disable or enable',
      description: 'Scope `admin`. A disabled endpoint gets no deliveries until enabled again.',
      requestParams: { path: EndpointIdParams },
      parameters: [idempotencyHeader],
      requestBody: json(UpdateWebhookEndpointRequest),
      responses: { ...ok(200, 'Updated', WebhookEndpointEnvelope), ...errors(404) },
    },
    delete: {
      operationId: 'deleteWebhookEndpoint',
      tags,
      summary: 'Delete a webhook endpoint',
      description: 'Scope `admin`. Its queued deliveries are cancelled.',
      requestParams: { path: EndpointIdParams },
      parameters: [idempotencyHeader],
      responses: { ...ok(200, 'Deleted', WebhookEndpointEnvelope), ...errors(404) },
    },
  },
  '/webhook-endpoints/{endpointId}/rotate-secret': {
    post: {
      operationId: 'rotateWebhookSecret',
      tags,
      summary: 'Rotate the signing secret',
      description: 'Scope `admin`. Answers the new secret once; the old one keeps signing (a second `v1`) for `expires_in_hours`.',
      requestParams: { path: EndpointIdParams },
      parameters: [idempotencyHeader],
      requestBody: { ...json(RotateSecretRequest), required: false },
      responses: { ...ok(200, 'Rotated', CreatedWebhookEndpoint), ...errors(404) },
    },
  },
  '/webhook-endpoints/{endpointId}/deliveries': {
    get: {
      operationId: 'listWebhookDeliveries',
      tags,
      summary: 'Every delivery attempt to this endpoint, newest first',
      description: 'Scope `admin`. Status code, error, duration and when the next attempt is due.',
      requestParams: { path: EndpointIdParams, query: ListDeliveriesQuery },
      responses: { ...ok(200, 'One page', WebhookDeliveryPage), ...errors(404) },
    },
    post: {
      operationId: 'resendWebhookEvent',
      tags,
      summary: 'Send an event to this endpoint again',
      description: 'Scope `admin`. Queues a new delivery (with its own attempts) of one of your events.',
      requestParams: { path: EndpointIdParams },
      parameters: [idempotencyHeader],
      requestBody: json(ResendRequest),
      responses: {
        ...ok(202, 'Queued', z.object({ queued: z.literal(true), endpoint_id: z.string(), event_id: z.string() })),
        ...errors(404),
      },
    },
  },
  '/events': {
    get: {
      operationId: 'listEvents',
      tags: ['Events'],
      summary: 'The event log, newest first',
      description: 'Scope `admin`. Everything a webhook would have delivered, so a receiver that was down can recover.',
      requestParams: { query: ListEventsQuery },
      responses: { ...ok(200, 'One page', EventPage), ...errors() },
    },
  },
  '/events/{eventId}': {
    get: {
      operationId: 'getEvent',
      tags: ['Events'],
      summary: 'One event',
      description: 'Scope `admin`.',
      requestParams: { path: z.object({ eventId: z.string() }) },
      responses: { ...ok(200, 'The event', z.object({ event: Event })), ...errors(404) },
    },
  },
};
