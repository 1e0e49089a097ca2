import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import type { Logger } from 'pino';
import { createApp } from './app.ts';
import { createPostgresKeyCache, createSqliteKeyCache, type KeyCache, type PostgresKeyCache } from './auth/key-cache.ts';
import { systemClock, type Clock } from './clock.ts';
import type { Config } from './config.ts';
import { checkReachable, migrateToLatest, openDatabase, type OpenedDatabase } from './db/database.ts';
import { NO_INDEX_BUILDS, startIndexBuilds, type IndexBuilder } from './db/online-indexes.ts';
import { serverMigrations } from './db/migrations/index.ts';
import { DEEP_PAGE_DEFAULTS, limitDeepPages } from './db/paged.ts';
import { addressesParagraph, demoBanner, ensureDemoOrganization } from './demo.ts';
import { outsidePartsParagraph } from './outside-parts.ts';
import type { Dispatcher } from './incidents/dispatcher.ts';
import { answerClientError } from './http/client-errors.ts';
import { httpServerOptions, type RequestTimeouts } from '../shared/http-timeouts.ts';
import { createLogger } from './logger.ts';
import { createMemoryRateLimitStore } from './rate-limit/memory-store.ts';
import { createRedisRateLimitStore } from './rate-limit/redis-store.ts';
import { createResilientRateLimitStore, localOnly } from './rate-limit/fallback-store.ts';
import { createMetrics } from './metrics/metrics.ts';
import { startMetricsListener, type MetricsListener } from './metrics/listener.ts';
import { dutyJob, dutySettingsOf } from './duty/service.ts';
import { createJobRunner } from './jobs/runner.ts';
import { sweepJob, type SweepReport } from './sweeps.ts';
import { foldAll, tallyFoldJob } from './tally-folder.ts';
import { setSearchScanRows, textIndexJob } from './db/text-search.ts';
import { loadSealingKeys, readySealing } from './secrets/start.ts';
import { createWebhookWorker } from './webhooks/worker.ts';
import { createWebhookQueue, type WebhookQueue } from './webhooks/queue.ts';
import { createEventFeed } from './events/feed.ts';
import { eventFrame } from './events/stream.ts';
import { createOfferBell, type OfferBell } from './responders/offer-bell.ts';
import { createStaffLive, staffLiveOptions, type StaffLive } from './operations/live.ts';
import { advanceDispatch, createDispatchEngine } from './dispatch/engine.ts';
import { kannelGateway } from './messages/gateway.ts';
import { queueAlarmTexts } from './messages/alarms.ts';
import { textingOf, type AlarmReason } from './messages/service.ts';
import { createTextWorker } from './messages/worker.ts';
import type { Executor, IncidentRow } from './db/schema.ts';
import { createThreatEngine } from './threat/engine.ts';
import { loadShippedThreatData } from './threat/shipped-data.ts';

export interface RunningServer {
  /** `http://HOST:PORT/v1/external` */
  baseUrl: string;
  /** The host's look-out for responders' long polls (tests and the bench count its checks). */
  offerBell: OfferBell;
  /** The host's reader behind the staff channel (tests and the bench count its reads). */
  staffLive: StaffLive;
  /** The app being served (a test walks its router to check every route is documented). */
  app: Express;
  port: number;
  database: OpenedDatabase;
  logger: Logger;
  /** `http://METRICS_HOST:PORT/metrics` when METRICS_PORT is set. */
  metricsUrl?: string;
  /** The API-key cache (tests look at the PostgreSQL listener's state). */
  keyCache: KeyCache | PostgresKeyCache;
  /** Runs the time-driven sweeps now (tests call it after moving the clock). */
  runSweeps(): Promise<SweepReport>;
  /** The app's webhook queue: what writes an event in this server's process goes through. */
  webhookQueue: WebhookQueue;
  /** Sends every due webhook delivery now; answers how many were attempted. */
  deliverWebhooks(): Promise<number>;
  /** The webhook worker's passes so far (tests check a write that queued nothing woke it for nothing). */
  webhookPasses(): number;
  /** Runs the dispatch sweep now: first offers, simulated steps, escalation, unresponsive. */
  advanceDispatch(): Promise<number>;
  /** Hands every due text message to the SMS gateway now; answers how many were attempted. */
  deliverTexts(): Promise<number>;
  /** The upgrade's online index builds (PostgreSQL; tests wait for `settled`). */
  indexBuilder: IndexBuilder;
  /** Folds every settled row into the lists' tallies now (tests; it runs in the background anyway). */
  foldTallies(): Promise<number>;
  /** Loads threat events written since the last load (done every second in the background). */
  refreshThreatIndex(): Promise<boolean>;
  /** Runs one of the job runner's jobs now (server/jobs/runner.ts), after any run of it in progress. */
  runJob<T = unknown>(name: string): Promise<T>;
  /** The runner's jobs, by name. */
  jobNames(): string[];
  stop(): Promise<void>;
}

/** How often each host looks for text messages due (besides being woken by an alarm it raised). */
const TEXT_POLL_MS = 2000;

export interface StartOptions {
  /** false: texts are only sent when a test calls `deliverTexts()`. */
  deliverTexts?: boolean;
  clock?: Clock;
  logger?: Logger;
  dispatcher?: Dispatcher;
  /** Run the dispatch sweep every second (default); tests that move the clock by hand turn it off. */
  runDispatch?: boolean;
  /** One-shot timers for simulated steps as they fall due (default: as runDispatch). */
  simulationTimers?: boolean;
  /** Deliver webhooks in the background (default); tests that drive delivery by hand turn it off. */
  deliverWebhooks?: boolean;
  /** How often the webhook worker polls for due deliveries besides its wakes (default 1000 ms). */
  webhookPollMs?: number;
  /** Where the start's words for people go (the addresses, the demo banner): stdout by default, never the log. */
  print?: (text: string) => void;
  /** How long a request may take to arrive (default REQUEST_TIMEOUTS, 20 s / 30 s); tests shorten it. */
  requestTimeouts?: RequestTimeouts;
  /** The event stream's heartbeat comment (default 15 s); tests shorten it. */
  eventStreamHeartbeatMs?: number;
  /** false: tallies are folded only when a test calls `foldTallies()` (default: in the background). */
  foldTallies?: boolean;
  /** false: the duty look (missed check-ins, staff alerts) runs only when a test calls `runJob('duty-alerts')` (default: every ALERTS_EVERY_S). */
  dutyAlerts?: boolean;
  /**
   * Tests only, never configuration (main.ts never sets it): live webhook deliveries may reach
   * loopback, so a journey's partner receiver listens on the test machine. Live endpoints stay
   * https-only to public addresses everywhere else.
   */
  liveWebhooksToLoopback?: boolean;
  /** false: PostgreSQL's text indexes' pending rows are merged only when a test calls `runJob('text-index-pending')` (default: every 2 s). */
  textIndexMerge?: boolean;
}

/** While Redis does not answer, each host asks it again this often. */
const REDIS_PROBE_INTERVAL_MS = 1000;

/** config → database → migrations → app → listen. `stop()` closes everything, in reverse. */
export async function startServer(config: Config, options: StartOptions = {}): Promise<RunningServer> {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger(config.LOG_LEVEL);
  const metrics = createMetrics();
  limitDeepPages({ ...DEEP_PAGE_DEFAULTS, fromRows: config.DATABASE_READ_DEEP_FROM_ROWS, concurrency: config.DATABASE_READ_DEEP_PAGES });
  setSearchScanRows(config.DATABASE_SEARCH_SCAN_ROWS);
  const database = openDatabase(config.DATABASE_URL, {
    poolSize: config.DATABASE_POOL_SIZE,
    readLane: {
      concurrency: config.DATABASE_READ_CONCURRENCY,
      timeoutMs: config.DATABASE_READ_TIMEOUT_S * 1000,
      queueMs: config.DATABASE_READ_QUEUE_S * 1000,
      nice: config.DATABASE_READ_NICE,
    },
    connectTimeoutS: config.DATABASE_CONNECT_TIMEOUT_S,
    statementTimeoutS: config.DATABASE_STATEMENT_TIMEOUT_S,
    preparedStatements: config.DATABASE_PREPARED_STATEMENTS,
    onConnectionError: (err) => {
      metrics.onPoolError(err);
      logger.warn({ err }, 'database connection lost; it will be replaced');
    },
    log: metrics.onQuery,
  });
  const print = options.print ?? ((text: string) => process.stdout.write(text));
  let secretBox;
  try {
    await checkReachable(database, config.DATABASE_CONNECT_TIMEOUT_S);
    const keys = loadSealingKeys(config, database.engine);
    secretBox = keys.box;
    await migrateToLatest(database.db, serverMigrations({ secretBox: () => keys.box }));
    await readySealing(database, keys, clock, logger, print);
  } catch (err) {
    await database.close();
    throw err;
  }
  if (config.THREAT_SEED) {
    for (const load of await loadShippedThreatData(database.db, clock)) {
      logger.info(load, 'loaded a shipped UCDP file (new or newer version) into the threat event store');
    }
  }
  // PostgreSQL builds the indexes of an upgrade after it serves (server/db/online-indexes.ts).
  const indexBuilder: IndexBuilder = database.engine === 'postgres' ? startIndexBuilds(config.DATABASE_URL, logger) : NO_INDEX_BUILDS;
  // One catalog query, so /health says from its first answer whether indexes are still to come.
  await indexBuilder.checked;
  const threat = await createThreatEngine(database.db, logger);
  const webhooks = createWebhookWorker({
    db: database.db,
    engine: database.engine,
    clock,
    logger,
    secretBox,
    timeoutMs: config.WEBHOOK_TIMEOUT_S * 1000,
    retryScale: config.WEBHOOK_RETRY_SCALE,
    allowPrivate: config.WEBHOOK_ALLOW_PRIVATE,
    liveToLoopback: options.liveWebhooksToLoopback === true,
  });
  // One per server: its app, sweeps and dispatch write events and deliveries through it.
  const webhookQueue = createWebhookQueue();
  // Text messages (docs/operations.md, "Text messages through Kannel"): none without SMS_GATEWAY.
  const smsGateway =
    config.SMS_GATEWAY === 'kannel'
      ? kannelGateway({ sendsmsUrl: config.KANNEL_SENDSMS_URL!, username: config.KANNEL_USERNAME!, password: config.KANNEL_PASSWORD!, senderId: config.SMS_SENDER_ID })
      : undefined;
  const texting = textingOf(config, { gateway: smsGateway, secretBox, clock, webhookQueue });
  const textWorker = createTextWorker({ ...texting, db: database.db, engine: database.engine, logger });
  const dispatchDeps = {
    db: database.db,
    clock,
    webhookQueue,
    logger,
    alarms: {
      queue: (trx: Executor, incident: IncidentRow, reason: AlarmReason) => queueAlarmTexts(trx, texting, incident, reason),
      committed: () => {
        if (options.deliverTexts !== false) textWorker.wake();
      },
    },
    settings: {
      radiusKm: config.DISPATCH_RADIUS_KM,
      offerCount: config.DISPATCH_OFFER_COUNT,
      sandboxSpeed: config.SANDBOX_SPEED,
      dispatchWindowS: config.DISPATCH_WINDOW_S,
      fixMaxAgeS: config.DISPATCH_FIX_MAX_AGE_S,
    },
  };
  const dispatcher =
    options.dispatcher ?? createDispatchEngine(dispatchDeps, { timers: options.simulationTimers ?? options.runDispatch !== false });
  const rateLimitStore = config.REDIS_URL
    ? createResilientRateLimitStore(
        createRedisRateLimitStore(config.REDIS_URL, { commandTimeoutMs: config.REDIS_TIMEOUT_MS }),
        createMemoryRateLimitStore(),
        { logger, probeIntervalMs: REDIS_PROBE_INTERVAL_MS },
      )
    : localOnly(createMemoryRateLimitStore());
  metrics.watch({
    db: database.db,
    clock,
    poolCounts: database.poolCounts,
    readLaneCounts: database.readLaneCounts,
    rateLimitMode: rateLimitStore.mode,
    onRateLimitSwitch: rateLimitStore.onSwitch,
  });
  const keyCache =
    database.engine === 'postgres'
      ? createPostgresKeyCache({ url: config.DATABASE_URL, logger, connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT_S * 1000 })
      : createSqliteKeyCache(database.db);
  const eventFeed = createEventFeed({
    db: database.db,
    engine: database.engine,
    databaseUrl: config.DATABASE_URL,
    logger,
    heartbeatMs: options.eventStreamHeartbeatMs,
    frameOf: eventFrame,
  });
  // The waiting phones' look-out and the staff channel's reader: one each per host (issue #47).
  const offerBell = createOfferBell({ db: database.db, engine: database.engine, databaseUrl: config.DATABASE_URL, logger });
  const staffLive = createStaffLive(staffLiveOptions({ db: database.db, clock, logger, webhookQueue, config }));
  const app = createApp({
    offerBell,
    staffLive,
    config,
    eventFeed,
    keyCache,
    db: database.db,
    readDb: database.readDb,
    clock,
    logger,
    rateLimitStore,
    metrics,
    dispatcher,
    secretBox,
    threat,
    onChange: options.deliverWebhooks === false ? undefined : webhooks.wake,
    webhookQueue,
    smsGateway,
    indexBuilds: indexBuilder.state,
  });

  // A request that stalls while arriving is closed with a 408 (shared/http-timeouts.ts).
  const server = createServer(httpServerOptions(options.requestTimeouts), app).listen(config.PORT, config.HOST);
  server.on('clientError', answerClientError);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const port = (server.address() as AddressInfo).port;
  const host = config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST;
  const baseUrl = `http://${host}:${port}/v1/external`;
  let metricsListener: MetricsListener | undefined;
  if (config.METRICS_PORT !== undefined) {
    try {
      metricsListener = await startMetricsListener(metrics.registry, config.METRICS_HOST, config.METRICS_PORT, logger);
    } catch (err) {
      server.close();
      await rateLimitStore.close();
      await database.close();
      throw err;
    }
  }
  logger.info(
    { baseUrl, database: database.describe, rateLimits: config.REDIS_URL ? 'redis' : 'memory', metrics: metricsListener?.url },
    'listening',
  );

  if (config.DEMO) {
    const demo = await ensureDemoOrganization(database.db, clock, config.PUBLIC_URL);
    if (demo) print(demoBanner(demo, baseUrl));
  }
  // Beside the JSON log lines, every start says in words where a person goes next.
  print(addressesParagraph(baseUrl, config.PORT === 0 ? new URL(baseUrl).origin : config.PUBLIC_URL, database.describe));
  print(outsidePartsParagraph(config, database.describe));

  const sweepSettings = { kioskOfflineAfterS: config.KIOSK_OFFLINE_AFTER_S };
  // The server's timers, one runner (server/jobs/runner.ts): each feature registers its job.
  const jobs = createJobRunner(logger);
  // Settled rows into the lists' tallies (server/db/tallies.ts), in the background.
  jobs.register(tallyFoldJob(database.db, { timed: options.foldTallies !== false }));
  // PostgreSQL's text indexes: new rows merged in from their pending lists, which every search reads.
  if (database.engine === 'postgres') jobs.register(textIndexJob(database.db, { timed: options.textIndexMerge !== false }));
  jobs.register(sweepJob(database.db, { clock, webhookQueue }, sweepSettings, config.SWEEP_INTERVAL_S * 1000));
  // Imports from the CLI and verified incidents from any host reach the index within a second:
  // a refresh with nothing new is one read of the revision counter.
  jobs.register({
    name: 'threat-index',
    everyMs: 1000,
    // Zones for the new data or the new day are worked out here, before a partner asks.
    runOnce: () => threat.refresh().then(() => threat.dangerZones(clock.now())),
    failure: 'threat index refresh failed; the next one will retry',
  });
  // Dispatch deadlines and simulated steps are seconds apart: this sweep runs every second.
  // Duty (issue #47): missed check-ins on scene, and the alerts staff see (shifts, fixes, status ages).
  jobs.register(dutyJob({ db: database.db, clock, webhookQueue, settings: dutySettingsOf(config) }, config.ALERTS_EVERY_S * 1000, { timed: options.dutyAlerts !== false }));
  jobs.register({ name: 'dispatch', everyMs: 1000, timed: options.runDispatch !== false, runOnce: () => advanceDispatch(dispatchDeps), failure: 'dispatch sweep failed' });
  jobs.start();
  if (options.deliverWebhooks !== false) webhooks.start(options.webhookPollMs ?? 1000);
  if (options.deliverTexts !== false) textWorker.start(TEXT_POLL_MS);

  return {
    baseUrl,
    offerBell,
    staffLive,
    app,
    port,
    database,
    logger,
    metricsUrl: metricsListener?.url,
    keyCache,
    runSweeps: () => jobs.run<SweepReport>('sweeps'),
    webhookQueue,
    deliverWebhooks: () => webhooks.runOnce(),
    deliverTexts: () => textWorker.runOnce(),
    webhookPasses: () => webhooks.passes,
    advanceDispatch: () => jobs.run<number>('dispatch'),
    refreshThreatIndex: () => threat.refresh(),
    indexBuilder,
    foldTallies: () => foldAll(database.db),
    runJob: (name) => jobs.run(name),
    jobNames: () => jobs.names(),
    async stop() {
      // Stop taking requests first (event streams end now, long polls get 5 s), then the background work, then storage.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await eventFeed.stop();
      await staffLive.stop();
      await offerBell.stop();
      server.closeIdleConnections();
      const force = setTimeout(() => server.closeAllConnections(), 5000);
      force.unref();
      await closed;
      clearTimeout(force);
      await metricsListener?.close();
      await indexBuilder.stop();
      dispatcher.stop?.();
      // Every job's timer stops, and a run in progress is waited for.
      await jobs.stop();
      await webhooks.stop();
      await textWorker.stop();
      await rateLimitStore.close();
      await keyCache.close();
      await database.close();
    },
  };
}
