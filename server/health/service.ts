import { sql } from 'kysely';
import type { z } from 'zod';
import type { Clock } from '../clock.ts';
import type { Db } from '../db/schema.ts';
import type { ResilientRateLimitStore } from '../rate-limit/fallback-store.ts';
import type { IndexBuildState } from '../db/online-indexes.ts';
import type { Health } from './health.ts';

export interface HealthDeps {
  db: Db;
  clock: Clock;
  rateLimitStore: ResilientRateLimitStore;
  /** The upgrade's online index builds (PostgreSQL); absent: nothing to build. */
  indexBuilds?: () => IndexBuildState;
}

/** Whether the database answers within 2 s, and Redis (when configured), in the answer's shape. */
export async function checkHealth(deps: HealthDeps): Promise<{ databaseUp: boolean; health: z.infer<typeof Health> }> {
  const rateLimits = deps.rateLimitStore.check();
  // The 2 s limit's timer is cleared once the database has answered: a load balancer polling
  // every host leaves no timers behind it.
  let limit: NodeJS.Timeout | undefined;
  const databaseUp = await Promise.race([
    sql`select 1`.execute(deps.db).then(
      () => true,
      () => false,
    ),
    new Promise<boolean>((resolve) => {
      limit = setTimeout(resolve, 2000, false).unref();
    }),
  ]).finally(() => clearTimeout(limit));
  const mode = await rateLimits;
  const checks: z.infer<typeof Health>['checks'] = { database: databaseUp ? 'ok' : 'down' };
  if (mode !== 'memory') checks.redis = mode === 'shared' ? 'ok' : 'down';
  const healthy = Object.values(checks).every((check) => check === 'ok');
  // Said only while an upgrade's indexes are still to be built: absent, every index is there.
  const builds = deps.indexBuilds?.();
  const indexes = builds && builds.state !== 'complete' ? builds : undefined;
  return {
    databaseUp,
    health: { status: healthy ? 'ok' : 'degraded', api_version: 'v1', timestamp: deps.clock.now().toISOString(), checks, ...(indexes && { indexes }) },
  };
}
