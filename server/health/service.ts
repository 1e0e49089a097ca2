import { sql } from 'kysely';
import type { z } from 'zod';
import type { Clock } from '../clock.ts';
import type { Db } from '../db/schema.ts';
import type { ResilientRateLimitStore } from '../rate-limit/fallback-store.ts';
import type { Health } from './health.ts';

export interface HealthDeps {
  db: Db;
  clock: Clock;
  rateLimitStore: ResilientRateLimitStore;
}

/** Whether the database answers within 2 s, and Redis (when configured), in the answer's shape. */
export async function checkHealth(deps: HealthDeps): Promise<{ databaseUp: boolean; health: z.infer<typeof Health> }> {
  const rateLimits = deps.rateLimitStore.check();
  const databaseUp = await Promise.race([
    sql`select 1`.execute(deps.db).then(
      () => true,
      () => false,
    ),
    new Promise<boolean>((resolve) => setTimeout(resolve, 2000, false).unref()),
  ]);
  const mode = await rateLimits;
  const checks: z.infer<typeof Health>['checks'] = { database: databaseUp ? 'ok' : 'down' };
  if (mode !== 'memory') checks.redis = mode === 'shared' ? 'ok' : 'down';
  const healthy = Object.values(checks).every((check) => check === 'ok');
  return { databaseUp, health: { status: healthy ? 'ok' : 'degraded', api_version: 'v1', timestamp: deps.clock.now().toISOString(), checks } };
}
