/**
 * The Tsaro server under test, in a process of its own: `startServer` on 127.0.0.1, port 0, over
 * DATABASE_URL (set by the parent), then one enterprise organization whose rate limit is raised
 * out of the way. Prints `{"benchReady":true,"baseUrl":...,"liveKey":...,"sandboxKey":...,"organizationId":...}`.
 *
 * Environment: DATABASE_URL (required), BENCH_LOG_LEVEL (LOG_LEVEL of the server, default warn),
 * BENCH_LOG_DEST (a file for the logs, e.g. /dev/null; default stdout, which the parent drains),
 * BENCH_SERVE_DELIVER_WEBHOOKS (`0`: webhook deliveries are queued but not sent, so a backlog
 * builds up for the next server on the same database; default on), BENCH_SANDBOX_SPEED
 * (SANDBOX_SPEED of the server: how fast the simulated network plays out sandbox incidents; default 1).
 */
import { pino } from 'pino';
import { systemClock } from '../server/clock.ts';
import { loadConfig } from '../server/config.ts';
import { createLogger } from '../server/logger.ts';
import { changeOrganization, createOrganization } from '../server/organizations/service.ts';
import { startServer } from '../server/server.ts';
import { announceReady, stopOnSignalOrOrphan } from './lib/child-side.ts';

/** High enough that no benchmark run meets a 429. */
export const BENCH_RATE_LIMIT_PER_MINUTE = 100_000_000;

async function main() {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) throw new Error('serve.ts: DATABASE_URL is required');
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    PORT: '0',
    HOST: '127.0.0.1',
    DEMO: '0',
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    SANDBOX_SPEED: process.env.BENCH_SANDBOX_SPEED,
  });
  const dest = process.env.BENCH_LOG_DEST;
  const logger = dest ? createLogger(config.LOG_LEVEL, pino.destination({ dest, sync: false })) : undefined;

  const running = await startServer(config, {
    clock: systemClock,
    ...(logger && { logger }),
    deliverWebhooks: process.env.BENCH_SERVE_DELIVER_WEBHOOKS !== '0',
  });
  stopOnSignalOrOrphan(() => running.stop());

  const created = await createOrganization(running.database.db, systemClock, { name: 'Bench Estate', plan: 'enterprise' });
  const organizationId = created.organization.organization_id;
  await changeOrganization(running.database.db, systemClock, organizationId, { rateLimitPerMinute: BENCH_RATE_LIMIT_PER_MINUTE });

  announceReady({
    baseUrl: running.baseUrl,
    liveKey: created.keys.live.secret,
    sandboxKey: created.keys.sandbox.secret,
    organizationId,
    engine: running.database.engine,
    pid: process.pid,
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`bench serve failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
