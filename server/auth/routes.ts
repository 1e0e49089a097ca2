import {
  ApiKeyEnvelope,
  ApiKeyIdParams,
  ApiKeyPage,
  ApiKeysToReview,
  CreateApiKeyRequest,
  CreatedApiKey,
  ListApiKeysQuery,
  RollApiKeyRequest,
} from '../../shared/schemas/api-keys.ts';
import { Empty } from '../../shared/schemas/common.ts';
import { errors, ok } from '../http/responses.ts';
import { routeFor, routerOf } from '../http/define-route.ts';
import type { RouteDeps } from '../route-deps.ts';
import { assertCanGrant, authOf, tenantOf, type AuthContext } from './context.ts';
import type { Maker } from './api-key.ts';
import { siteLimitFor } from '../sites/service.ts';
import { createApiKey, keepReviewedKey, keysToReview, listTenantApiKeys, revokeApiKey, rollApiKey, scopesOfKey } from './service.ts';

const route = routeFor<RouteDeps>();

/** The caller a key is made by: kept on the key (who made it, with which role). */
const makerOf = (auth: AuthContext): Maker =>
  auth.person ? { type: 'person', id: auth.person.personId, label: auth.actor.label, role: auth.person.role } : { type: 'key', id: auth.keyId, label: auth.actor.label };
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
        maker: makerOf(auth),
        siteIds: await siteLimitFor(db, tenantOf(req), body.site_ids),
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
      res.status(201).json(await rollApiKey(db, deps.clock, tenantOf(req), params.keyId, body.expires_in_hours, makerOf(authOf(req))));
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
  route({
    method: 'get',
    path: '/api-keys/review',
    access: 'person',
    guardOptions: { roles: ['owner'], everySite: true },
    operationId: 'listApiKeysToReview',
    // A person's browser, not a program: the console's routes (a session, never a key).
    tags: ['Console'],
    summary: 'Keys made beyond their maker\'s grant, for owners to review',
    description:
      "Owners only, both environments: keys that still answer and hold scopes their maker's role may not grant (a developer's `admin` key made before the grant rule). Each is kept (`POST /api-keys/{keyId}/keep`) or revoked.",
    responses: { ...ok(200, 'The keys to review, newest first', ApiKeysToReview), ...errors(403) },
    async handler(_input, req, res, deps) {
      res.json({ results: await keysToReview(deps.db, deps.clock, authOf(req).organization.organization_id) });
    },
  }),
  route({
    method: 'post',
    path: '/api-keys/:keyId/keep',
    access: 'person',
    guardOptions: { roles: ['owner'], everySite: true },
    params: ApiKeyIdParams,
    body: Empty,
    operationId: 'keepReviewedApiKey',
    tags: ['Console'],
    summary: 'Keep a key made beyond its maker\'s grant',
    description: 'Owners only: the key keeps its scopes and leaves the review list; the audit log records who kept it. A key that needs no review: 409.',
    responses: { ...ok(200, 'Kept', ApiKeyEnvelope), ...errors(403, 404, 409) },
    async handler({ params }, req, res, deps) {
      const auth = authOf(req);
      res.json({ api_key: await keepReviewedKey(deps.db, deps.clock, auth.organization.organization_id, params.keyId, auth.person!.personId) });
    },
  }),
];

export const apiKeyRoutes = (deps: RouteDeps) => routerOf(apiKeyRouteList, deps, deps);
