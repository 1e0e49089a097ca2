import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { createApp } from './app.ts';
import { systemClock, type Clock } from './clock.ts';
import type { Config } from './config.ts';
import { migrateToLatest, openDatabase, type OpenedDatabase } from './db/database.ts';
import { ensureDemoOrganization, demoBanner } from './demo.ts';
import type { Dispatcher } from './incidents/dispatcher.ts';
import { createLogger } from './logger.ts';
import { createMemoryRateLimitStore } from './rate-limit/memory-store.ts';
import { createRedisRateLimitStore } from './rate-limit/redis-store.ts';
import { runSweeps, scheduleSweeps, type SweepReport } from './sweeps.ts';
import { createSecretBox, loadSecretsKey } from './webhooks/secret-box.ts';
import { createWebhookWorker } from './webhooks/worker.ts';

export interface RunningServer {
  /** `http://HOST:PORT/v1/external` */
  baseUrl: string;
  port: number;
  database: OpenedDatabase;
  logger: Logger;
  /** Runs the time-driven sweeps now (tests call it after moving the clock). */
  runSweeps(): Promise<SweepReport>;
  /** Sends every due webhook delivery now; answers how many were attempted. */
  deliverWebhooks(): Promise<number>;
  stop(): Promise<void>;
}

export interface StartOptions {
  clock?: Clock;
  logger?: Logger;
  dispatcher?: Dispatcher;
  /** Deliver webhooks in the background (default); tests that drive delivery by hand turn it off. */
  deliverWebhooks?: boolean;
  /** Where the demo banner goes (stdout by default); never the log. */
  print?: (text: string) => void;
}

/** config → database → migrations → app → listen. `stop()` closes everything, in reverse. */
export async function startServer(config: Config, options: StartOptions = {}): Promise<RunningServer> {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger(config.LOG_LEVEL);
  const database = openDatabase(config.DATABASE_URL, {
    onConnectionError: (err) => logger.warn({ err }, 'database connection lost; it will be replaced'),
  });
  try {
    await migrateToLatest(database.db);
  } catch (err) {
    await database.close();
    throw err;
  }
  const secrets = await loadSecretsKey(database.db, clock, config.SECRETS_KEY);
  if (secrets.source === 'database' && database.engine === 'postgres') {
    logger.warn('SECRETS_KEY is not set: webhook secrets are sealed with a key kept in the same database');
  }
  const secretBox = createSecretBox(secrets.key);
  const webhooks = createWebhookWorker({
    db: database.db,
    engine: database.engine,
    clock,
    logger,
    secretBox,
    timeoutMs: config.WEBHOOK_TIMEOUT_S * 1000,
  });
  const rateLimitStore = config.REDIS_URL ? createRedisRateLimitStore(config.REDIS_URL) : createMemoryRateLimitStore();
  const app = createApp({
    config,
    db: database.db,
    clock,
    logger,
    rateLimitStore,
    dispatcher: options.dispatcher,
    secretBox,
    onChange: options.deliverWebhooks === false ? undefined : webhooks.wake,
  });

  const server = app.listen(config.PORT, config.HOST);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const port = (server.address() as AddressInfo).port;
  const host = config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST;
  const baseUrl = `http://${host}:${port}/v1/external`;
  logger.info({ baseUrl, database: database.describe, rateLimits: config.REDIS_URL ? 'redis' : 'memory' }, 'listening');

  if (config.DEMO) {
    const demo = await ensureDemoOrganization(database.db, clock);
    if (demo) (options.print ?? ((text) => process.stdout.write(text)))(demoBanner(demo, baseUrl));
  }

  const stopSweeps = scheduleSweeps(database.db, clock, logger, config.SWEEP_INTERVAL_S * 1000);
  if (options.deliverWebhooks !== false) webhooks.start(1000);

  return {
    baseUrl,
    port,
    database,
    logger,
    runSweeps: () => runSweeps(database.db, clock),
    deliverWebhooks: () => webhooks.runOnce(),
    async stop() {
      await stopSweeps();
      await webhooks.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await rateLimitStore.close();
      await database.close();
    },
  };
}
