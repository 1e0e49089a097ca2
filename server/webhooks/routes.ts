import { Router, type RequestHandler } from 'express';
import { z } from 'zod';
import {
  CreateWebhookEndpointRequest,
  EndpointIdParams,
  ListDeliveriesQuery,
  ListEventsQuery,
  ResendRequest,
  RotateSecretRequest,
  UpdateWebhookEndpointRequest,
} from '../../shared/schemas/webhooks.ts';
import { PageQuery } from '../../shared/schemas/common.ts';
import { tenantOf } from '../auth/context.ts';
import { getEvent, listEvents } from '../events/service.ts';
import { badRequest } from '../http/errors.ts';
import { parseInput } from '../http/parse.ts';
import type { RouteDeps } from '../http/route-deps.ts';
import { requestDb } from '../idempotency/middleware.ts';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookDeliveries,
  listWebhookEndpoints,
  resendEvent,
  rotateWebhookSecret,
  updateWebhookEndpoint,
} from './service.ts';
import { checkEndpointUrl } from './url-policy.ts';

/** The `admin` scope's webhook endpoints and the event log. */
export function webhookRoutes(deps: RouteDeps): Router {
  const router = Router();
  const admin = deps.guard('admin');
  const hooks = { clock: deps.clock, secretBox: deps.secretBox };

  // The URL's DNS is checked before the request transaction opens: a slow resolver must not hold
  // the database (SQLite has one connection) while it answers.
  const urlChecked: RequestHandler = async (req, _res, next) => {
    const url = (req.body as { url?: unknown } | undefined)?.url;
    if (typeof url === 'string' && URL.canParse(url)) {
      const refusal = await checkEndpointUrl(url, tenantOf(req).environment);
      if (refusal) throw badRequest(`url: ${refusal}`);
    }
    next();
  };

  router.post('/webhook-endpoints', admin, urlChecked, deps.idempotent, async (req, res) => {
    const body = parseInput(CreateWebhookEndpointRequest, req.body, 'body');
    res.status(201).json(await createWebhookEndpoint(requestDb(req, deps.db), hooks, tenantOf(req), body));
  });
  router.get('/webhook-endpoints', admin, async (req, res) => {
    res.json(await listWebhookEndpoints(deps.db, tenantOf(req), parseInput(PageQuery, req.query, 'query')));
  });
  router.get('/webhook-endpoints/:endpointId', admin, async (req, res) => {
    const { endpointId } = parseInput(EndpointIdParams, req.params, 'params');
    res.json({ webhook_endpoint: await getWebhookEndpoint(deps.db, tenantOf(req), endpointId) });
  });
  router.patch('/webhook-endpoints/:endpointId', admin, urlChecked, deps.idempotent, async (req, res) => {
    const { endpointId } = parseInput(EndpointIdParams, req.params, 'params');
    const body = parseInput(UpdateWebhookEndpointRequest, req.body, 'body');
    res.json({ webhook_endpoint: await updateWebhookEndpoint(requestDb(req, deps.db), hooks, tenantOf(req), endpointId, body) });
  });
  router.delete('/webhook-endpoints/:endpointId', admin, deps.idempotent, async (req, res) => {
    const { endpointId } = parseInput(EndpointIdParams, req.params, 'params');
    res.json({ webhook_endpoint: await deleteWebhookEndpoint(requestDb(req, deps.db), hooks, tenantOf(req), endpointId) });
  });
  router.post('/webhook-endpoints/:endpointId/rotate-secret', admin, deps.idempotent, async (req, res) => {
    const { endpointId } = parseInput(EndpointIdParams, req.params, 'params');
    const { expires_in_hours } = parseInput(RotateSecretRequest, req.body, 'body');
    res.json(await rotateWebhookSecret(requestDb(req, deps.db), hooks, tenantOf(req), endpointId, expires_in_hours));
  });
  router.get('/webhook-endpoints/:endpointId/deliveries', admin, async (req, res) => {
    const { endpointId } = parseInput(EndpointIdParams, req.params, 'params');
    const query = parseInput(ListDeliveriesQuery, req.query, 'query');
    res.json(await listWebhookDeliveries(deps.db, tenantOf(req), endpointId, query));
  });
  router.post('/webhook-endpoints/:endpointId/deliveries', admin, deps.idempotent, async (req, res) => {
    const { endpointId } = parseInput(EndpointIdParams, req.params, 'params');
    const { event_id } = parseInput(ResendRequest, req.body, 'body');
    res.status(202).json(await resendEvent(requestDb(req, deps.db), hooks, tenantOf(req), endpointId, event_id));
  });

  router.get('/events', admin, async (req, res) => {
    res.json(await listEvents(deps.db, tenantOf(req), parseInput(ListEventsQuery, req.query, 'query')));
  });
  router.get('/events/:eventId', admin, async (req, res) => {
    const { eventId } = parseInput(z.object({ eventId: z.string() }), req.params, 'params');
    res.json({ event: await getEvent(deps.db, tenantOf(req), eventId) });
  });
  return router;
}
