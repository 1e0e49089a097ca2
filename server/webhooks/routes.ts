import type { Request } from 'express';
import { z } from 'zod';
import {
  CreateWebhookEndpointRequest,
  CreatedWebhookEndpoint,
  EndpointIdParams,
  Event,
  ResendFailedRequest,
  TestEventRequest,
  ListDeliveriesQuery,
  ListWebhookEndpointsQuery,
  ResendRequest,
  RotateSecretRequest,
  UpdateWebhookEndpointRequest,
  WebhookDeliveryPage,
  WebhookEndpointEnvelope,
  WebhookEndpointPage,
} from '../../shared/schemas/webhooks.ts';
import { authOf, tenantOf } from '../auth/context.ts';
import { errors, ok } from '../http/responses.ts';
import { routeFor, routerOf } from '../http/define-route.ts';
import { badRequest } from '../http/errors.ts';
import { siteLimitFor } from '../sites/service.ts';
import type { RouteDeps } from '../route-deps.ts';
import { SIGNING, SUBSCRIBING } from './openapi.ts';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookDeliveries,
  listWebhookEndpoints,
  resendEvent,
  resendFailed,
  rotateWebhookSecret,
  sendTestEvent,
  updateWebhookEndpoint,
} from './service.ts';
import { checkEndpointUrl } from './url-policy.ts';

const route = routeFor<RouteDeps>();
const tags = ['Webhooks'];
const hooksOf = (deps: RouteDeps) => ({ clock: deps.clock, secretBox: deps.secretBox, webhookQueue: deps.webhookQueue });

// The URL's DNS is checked before the request transaction opens: a slow resolver must not hold
// the database (SQLite has one connection) while it answers.
async function urlChecked(req: Request, deps: RouteDeps): Promise<void> {
  const url = (req.body as { url?: unknown } | undefined)?.url;
  if (typeof url === 'string' && URL.canParse(url)) {
    const refusal = await checkEndpointUrl(url, { environment: tenantOf(req).environment, allowPrivate: deps.config.WEBHOOK_ALLOW_PRIVATE });
    if (refusal) throw badRequest(`url: ${refusal}`);
  }
}

/** The `admin` scope's webhook endpoints. */
export const webhookRouteList = [
  route({
    method: 'post',
    path: '/webhook-endpoints',
    access: 'admin',
    precheck: urlChecked,
    idempotent: 'answer-holds-secret',
    body: CreateWebhookEndpointRequest,
    operationId: 'createWebhookEndpoint',
    tags,
    summary: 'Register a webhook endpoint',
    description: `The \`whsec_\` secret is in this answer only. Live endpoints: https, public addresses only (checked now and at every send). Sandbox endpoints may be http; on loopback or private addresses only where the operator allows it (WEBHOOK_ALLOW_PRIVATE). ${SIGNING} ${SUBSCRIBING}`,
    responses: { ...ok(201, 'Registered', CreatedWebhookEndpoint), ...errors() },
    async handler({ body, db }, req, res, deps) {
      const siteIds = await siteLimitFor(db, tenantOf(req), body.site_ids);
      res.status(201).json(await createWebhookEndpoint(db, hooksOf(deps), tenantOf(req), { ...body, site_ids: siteIds }, authOf(req).scopes));
    },
  }),
  route({
    method: 'get',
    path: '/webhook-endpoints',
    access: 'admin',
    query: ListWebhookEndpointsQuery,
    operationId: 'listWebhookEndpoints',
    tags,
    summary: 'List webhook endpoints',
    description: 'Secrets are never listed.',
    responses: { ...ok(200, 'One page', WebhookEndpointPage), ...errors() },
    async handler({ query }, req, res, deps) {
      res.json(await listWebhookEndpoints(deps.db, tenantOf(req), query));
    },
  }),
  route({
    method: 'get',
    path: '/webhook-endpoints/:endpointId',
    access: 'admin',
    params: EndpointIdParams,
    operationId: 'getWebhookEndpoint',
    tags,
    summary: 'Get a webhook endpoint',
    responses: { ...ok(200, 'The endpoint', WebhookEndpointEnvelope), ...errors(404) },
    async handler({ params }, req, res, deps) {
      res.json({ webhook_endpoint: await getWebhookEndpoint(deps.db, tenantOf(req), params.endpointId) });
    },
  }),
  route({
    method: 'patch',
    path: '/webhook-endpoints/:endpointId',
    access: 'admin',
    precheck: urlChecked,
    idempotent: true,
    params: EndpointIdParams,
    body: UpdateWebhookEndpointRequest,
    operationId: 'updateWebhookEndpoint',
    tags,
    summary: 'Change URL, subscriptions or description; disable or enable',
    description: `A disabled endpoint gets no deliveries until enabled again. ${SUBSCRIBING} Changing \`events\` or \`url\`, or enabling, checks the endpoint's subscriptions so.`,
    responses: { ...ok(200, 'Updated', WebhookEndpointEnvelope), ...errors(404) },
    async handler({ params, body, db }, req, res, deps) {
      const tenant = tenantOf(req);
      // null: every site, which only a caller who reaches them all may give.
      if (body.site_ids === null && tenant.sites) throw badRequest('site_ids: you are limited to sites, so an endpoint you change is too: name its sites');
      const siteIds = body.site_ids === undefined ? undefined : body.site_ids === null ? null : await siteLimitFor(db, tenant, body.site_ids);
      res.json({ webhook_endpoint: await updateWebhookEndpoint(db, hooksOf(deps), tenant, params.endpointId, { ...body, site_ids: siteIds }, authOf(req).scopes) });
    },
  }),
  route({
    method: 'delete',
    path: '/webhook-endpoints/:endpointId',
    access: 'admin',
    idempotent: true,
    params: EndpointIdParams,
    operationId: 'deleteWebhookEndpoint',
    tags,
    summary: 'Delete a webhook endpoint',
    description: 'Its queued deliveries are cancelled.',
    responses: { ...ok(200, 'Deleted', WebhookEndpointEnvelope), ...errors(404) },
    async handler({ params, db }, req, res, deps) {
      res.json({ webhook_endpoint: await deleteWebhookEndpoint(db, hooksOf(deps), tenantOf(req), params.endpointId) });
    },
  }),
  route({
    method: 'post',
    path: '/webhook-endpoints/:endpointId/rotate-secret',
    access: 'admin',
    idempotent: 'answer-holds-secret',
    params: EndpointIdParams,
    body: RotateSecretRequest,
    operationId: 'rotateWebhookSecret',
    tags,
    summary: 'Rotate the signing secret',
    description: 'Answers the new secret once; the old one keeps signing (a second `v1`) for `expires_in_hours`.',
    responses: { ...ok(200, 'Rotated', CreatedWebhookEndpoint), ...errors(404) },
    async handler({ params, body, db }, req, res, deps) {
      res.json(await rotateWebhookSecret(db, hooksOf(deps), tenantOf(req), params.endpointId, body.expires_in_hours));
    },
  }),
  route({
    method: 'get',
    lane: 'reads',
    path: '/webhook-endpoints/:endpointId/deliveries',
    access: 'admin',
    params: EndpointIdParams,
    query: ListDeliveriesQuery,
    operationId: 'listWebhookDeliveries',
    tags,
    summary: 'Every delivery attempt to this endpoint, newest first',
    description:
      'Status code, error, duration and when the next attempt is due, and the `payload` delivered: null for an event type the key may not read (the read scope rule of `listEvents`).',
    responses: { ...ok(200, 'One page', WebhookDeliveryPage), ...errors(404) },
    async handler({ params, query, db }, req, res) {
      res.json(await listWebhookDeliveries(db, tenantOf(req), params.endpointId, query, authOf(req).scopes));
    },
  }),
  route({
    method: 'post',
    path: '/webhook-endpoints/:endpointId/deliveries',
    access: 'admin',
    idempotent: true,
    params: EndpointIdParams,
    body: ResendRequest,
    operationId: 'resendWebhookEvent',
    tags,
    summary: 'Send an event to this endpoint again',
    description: [
      'Queues a new delivery (with its own attempts) of one of your events. An event of a type the key may not read, or of a site beyond its sites, is a 404.',
      'The event goes only where live deliveries would have sent it: an event of a type the endpoint is not subscribed to, or about a site beyond',
      "the endpoint's `site_ids` (or about no site, to an endpoint limited to sites), is a 409 naming `event_id`. A test event goes to any endpoint, as the test route sends it.",
    ].join(' '),
    responses: {
      ...ok(202, 'Queued', z.object({ queued: z.literal(true), endpoint_id: z.string(), event_id: z.string() })),
      ...errors(404, 409),
    },
    async handler({ params, body, db }, req, res, deps) {
      res.status(202).json(await resendEvent(db, hooksOf(deps), tenantOf(req), authOf(req).scopes, params.endpointId, body.event_id));
    },
  }),
  route({
    method: 'post',
    path: '/webhook-endpoints/:endpointId/test',
    access: 'admin',
    idempotent: true,
    params: EndpointIdParams,
    body: TestEventRequest,
    operationId: 'sendTestWebhookEvent',
    tags,
    summary: 'Send a signed test event of any type to this endpoint',
    description:
      'Sample data shaped as the real resource, signed as every delivery is, with `"test": true` in the envelope. It is stored, so its delivery is in the log, but left out of `GET /events` unless `include_test=true`. Needs the read scope of the type.',
    responses: { ...ok(202, 'Queued', z.object({ event: Event, queued: z.literal(true) })), ...errors(403, 404) },
    async handler({ params, body, db }, req, res, deps) {
      res.status(202).json(await sendTestEvent(db, hooksOf(deps), tenantOf(req), authOf(req).scopes, params.endpointId, body.type));
    },
  }),
  route({
    method: 'post',
    path: '/webhook-endpoints/:endpointId/resend-failed',
    access: 'admin',
    idempotent: true,
    params: EndpointIdParams,
    body: ResendFailedRequest,
    operationId: 'resendFailedWebhookEvents',
    tags,
    summary: 'Send again every event whose delivery failed in a time range',
    description:
      "Each event once, as a new delivery with fresh attempts; `from` inclusive, `to` exclusive, by attempt time. Only event types the key may read, and only events the endpoint still receives (its subscriptions and `site_ids` as they are now, as live deliveries decide).",
    responses: { ...ok(202, 'Queued', z.object({ queued: z.int() })), ...errors(404) },
    async handler({ params, body, db }, req, res, deps) {
      res.status(202).json(await resendFailed(db, hooksOf(deps), tenantOf(req), authOf(req).scopes, params.endpointId, body.from, body.to));
    },
  }),
];

export const webhookRoutes = (deps: RouteDeps) => routerOf(webhookRouteList, deps, deps);
