import { Router } from 'express';
import { sql } from 'kysely';
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { Timestamp } from '../../shared/schemas/common.ts';
import type { Clock } from '../clock.ts';
import type { Db } from '../db/schema.ts';

export const Health = z
  .object({ status: z.enum(['ok', 'degraded']), api_version: z.literal('v1'), timestamp: Timestamp })
  .meta({ id: 'Health' });

/** No key, no rate limit: load balancers and kiosks poll it. 503 when the database does not answer. */
export function healthRoutes(deps: { db: Db; clock: Clock }): Router {
  const router = Router();
  router.get('/health', async (_req, res) => {
    const ok = await Promise.race([
      sql`select 1`.execute(deps.db).then(
        () => true,
        () => false,
      ),
      new Promise<boolean>((resolve) => setTimeout(resolve, 2000, false).unref()),
    ]);
    res
      .status(ok ? 200 : 503)
      .set('Cache-Control', 'no-store')
      .json({ status: ok ? 'ok' : 'degraded', api_version: 'v1', timestamp: deps.clock.now().toISOString() });
  });
  return router;
}

export const healthPaths: ZodOpenApiPathsObject = {
  '/health': {
    get: {
      operationId: 'health',
      tags: ['Health'],
      summary: 'Health check',
      description: 'No key and no rate limit. 503 with `status: degraded` when the database does not answer.',
      security: [],
      responses: {
        200: { description: 'Healthy', content: { 'application/json': { schema: Health } } },
        503: { description: 'Database not answering', content: { 'application/json': { schema: Health } } },
      },
    },
  },
};
