import { ErrorBody } from '../../shared/schemas/common.ts';
import { routeFor, routerOf } from '../http/define-route.ts';
import { Health } from './health.ts';
import { checkHealth, type HealthDeps } from './service.ts';

const route = routeFor<HealthDeps>();

/**
 * No key, no rate limit: load balancers and kiosks poll it. 503 only when the database does not
 * answer: a host without Redis still serves every request, and a load balancer that saw 503 on
 * every host while Redis is down would take the whole service out.
 */
export const healthRouteList = [
  route({
    method: 'get',
    path: '/health',
    access: 'public',
    operationId: 'health',
    tags: ['Health'],
    summary: 'Health check',
    description:
      'No key and no rate limit. `checks` names each part and whether it answers. 503 with `status: degraded` only when the database does not answer. With Redis down the answer stays 200 with `status: degraded` and `checks.redis: down`: rate limits are then kept per host and every request is still served.',
    responses: {
      200: { description: 'Serving requests: `ok`, or `degraded` when only Redis is down', content: { 'application/json': { schema: Health } } },
      // What every route refuses before it runs (server/http/input-guard.ts) reaches this one too.
      400: { description: 'Refused before the check: a NUL (%00) in the URL, or a body that is not JSON', content: { 'application/json': { schema: ErrorBody } } },
      503: { description: 'Database not answering', content: { 'application/json': { schema: Health } } },
    },
    async handler(_input, _req, res, deps) {
      const { databaseUp, health } = await checkHealth(deps);
      res
        .status(databaseUp ? 200 : 503)
        .set('Cache-Control', 'no-store')
        .json(health);
    },
  }),
];

export const healthRoutes = (deps: HealthDeps) => routerOf(healthRouteList, deps);
