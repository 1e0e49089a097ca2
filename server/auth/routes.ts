import { Router } from 'express';
import { ApiKeyIdParams, CreateApiKeyRequest, ListApiKeysQuery } from '../../shared/schemas/api-keys.ts';
import { ApiError } from '../http/errors.ts';
import { pageWindow, toPage } from '../http/pagination.ts';
import { parseInput } from '../http/parse.ts';
import type { RouteDeps } from '../http/route-deps.ts';
import { requestDb } from '../idempotency/middleware.ts';
import { rowToApiKey } from './api-key.ts';
import { authOf, tenantOf } from './context.ts';
import { createApiKey, revokeApiKey } from './service.ts';
import { listApiKeys } from './store.ts';

/** The `admin` scope's key management: keys of the caller's own organization and environment. */
export function apiKeyRoutes(deps: RouteDeps): Router {
  const router = Router();

  router.post('/api-keys', deps.guard('admin'), deps.idempotent, async (req, res) => {
    const body = parseInput(CreateApiKeyRequest, req.body, 'body');
    const auth = authOf(req);
    const ungrantable = body.scopes.find((scope) => !auth.scopes.has(scope));
    if (ungrantable) throw new ApiError(403, `This API key cannot grant the ${ungrantable} scope it does not hold`);
    const created = await createApiKey(requestDb(req, deps.db), deps.clock, {
      organizationId: auth.organization.organization_id,
      environment: auth.environment,
      name: body.name,
      scopes: body.scopes,
    });
    res.status(201).json(created);
  });

  router.get('/api-keys', deps.guard('admin'), async (req, res) => {
    const query = parseInput(ListApiKeysQuery, req.query, 'query');
    const { rows, total } = await listApiKeys(deps.db, tenantOf(req), pageWindow(query));
    res.json(toPage(rows.map(rowToApiKey), total, query));
  });

  router.delete('/api-keys/:keyId', deps.guard('admin'), deps.idempotent, async (req, res) => {
    const { keyId } = parseInput(ApiKeyIdParams, req.params, 'params');
    res.json({ api_key: await revokeApiKey(requestDb(req, deps.db), deps.clock, tenantOf(req), keyId) });
  });

  return router;
}
