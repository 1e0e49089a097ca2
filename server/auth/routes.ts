import {
  ApiKeyEnvelope,
  ApiKeyIdParams,
  ApiKeyPage,
  CreateApiKeyRequest,
  CreatedApiKey,
  ListApiKeysQuery,
  RollApiKeyRequest,
} from '../../shared/schemas/api-keys.ts';
import { errors, ok } from '../http/responses.ts';
import { routeFor, routerOf } from '../http/define-route.ts';
import type { RouteDeps } from '../route-deps.ts';
import { assertCanGrant, authOf, tenantOf } from './context.ts';
import { createApiKey, listTenantApiKeys, revokeApiKey, rollApiKey, scopesOfKey } from './service.ts';

const route = routeFor<RouteDeps>();
const tags = ['API keys'];

/** The `admin` scope's key management: keys of the caller's own organization and environment. */
export const apiKeyRouteList = [
  route({
    method: 'post',
    path: '/api-keys',
    access: 'admin',
    // Checked before the Idempotency-Key is looked up, so a replay is authorized like the request.
    async precheck(req) {
      const parsed = CreateApiKeyRequest.safeParse(req.body);
      if (parsed.success) assertCanGrant(authOf(req), parsed.data.scopes);
    },
    idempotent: 'answer-holds-secret',
    body: CreateApiKeyRequest,
    operationId: 'createApiKey',
    tags,
    summary: 'Create an API key',
    description:
      "The key is made in the caller's environment with only scopes the caller holds (403 otherwise). The secret is in this answer and never again.",
    responses: { ...ok(201, 'Created; keep the secret now', CreatedApiKey), ...errors() },
    async handler({ body, db }, req, res, deps) {
      const auth = authOf(req);
      const created = await createApiKey(db, deps.clock, {
        organizationId: auth.organization.organization_id,
        environment: auth.environment,
        name: body.name,
        scopes: body.scopes,
      });
      res.status(201).json(created);
    },
  }),
  route({
    method: 'get',
    path: '/api-keys',
    access: 'admin',
    query: ListApiKeysQuery,
    operationId: 'listApiKeys',
    tags,
    summary: "List the organization's keys in this environment",
    description: 'Secrets are never listed, only a hint. Filters (`status`, `scopes`) apply before paging: `totalResults` counts what matches.',
    responses: { ...ok(200, 'One page', ApiKeyPage), ...errors() },
    async handler({ query }, req, res, deps) {
      res.json(await listTenantApiKeys(deps.db, deps.clock, tenantOf(req), query));
    },
  }),
  route({
    method: 'post',
    path: '/api-keys/:keyId/roll',
    access: 'admin',
    async precheck(req, deps) {
      const scopes = await scopesOfKey(deps.db, tenantOf(req), String(req.params.keyId));
      if (scopes) assertCanGrant(authOf(req), scopes);
    },
    idempotent: 'answer-holds-secret',
    params: ApiKeyIdParams,
    body: RollApiKeyRequest,
    operationId: 'rollApiKey',
    tags,
    summary: 'Roll an API key',
    description:
      'Makes a new key with the same name and scopes, and sets the old one to expire after `expires_in_hours` (default 24, at most 168), so every client can switch without a gap. The caller must hold every scope of the key (403 otherwise). The new secret is in this answer and never again. A revoked or expired key: 409.',
    responses: { ...ok(201, 'Rolled; keep the new secret now', CreatedApiKey), ...errors(404, 409) },
    async handler({ params, body, db }, req, res, deps) {
      res.on('close', deps.keyCache.hold());
      res.status(201).json(await rollApiKey(db, deps.clock, tenantOf(req), params.keyId, body.expires_in_hours));
    },
  }),
  route({
    method: 'delete',
    path: '/api-keys/:keyId',
    access: 'admin',
    idempotent: true,
    params: ApiKeyIdParams,
    operationId: 'revokeApiKey',
    tags,
    summary: 'Revoke an API key',
    description: 'The key answers 401 from now on. Already revoked: 409.',
    responses: { ...ok(200, 'Revoked', ApiKeyEnvelope), ...errors(404, 409) },
    async handler({ params, db }, req, res, deps) {
      // This host's cache is held until the revoke has answered: the client's next request, here,
      // does not wait for the change notice other hosts get (key-cache.ts).
      res.on('close', deps.keyCache.hold());
      res.json({ api_key: await revokeApiKey(db, deps.clock, tenantOf(req), params.keyId) });
    },
  }),
];

export const apiKeyRoutes = (deps: RouteDeps) => routerOf(apiKeyRouteList, deps, deps);
