import express, { type Express, type RequestHandler } from 'express';
import type { Logger } from 'pino';
import { createPassVerifier } from './access-codes/pass-keys.ts';
import { consoleAppRoutes } from './console/app-files.ts';
import { createGuard } from './auth/authenticate.ts';
import { uncachedKeys, type KeyCache } from './auth/key-cache.ts';
import { auditChanges } from './audit/middleware.ts';
import { personAccess } from './people/middleware.ts';
import type { Clock } from './clock.ts';
import { isPostgresUrl, type Config } from './config.ts';
import type { IndexBuildState } from './db/online-indexes.ts';
import type { Db } from './db/schema.ts';
import type { EventFeed } from './events/feed.ts';
import { docsRoutes } from './docs/routes.ts';
import { createStreamRegistry } from './events/stream-registry.ts';
import { bySegment } from './http/by-segment.ts';
import { errorHandler, routeNotFound } from './http/errors.ts';
import { inputGuard, JSON_MEDIA_TYPES } from './http/input-guard.ts';
import { answerJsonDirectly } from './http/json-answer.ts';
import { requestLog } from './http/request-log.ts';
import type { RouteDeps } from './route-deps.ts';
import { idempotency } from './idempotency/middleware.ts';
import { noDispatcher, type Dispatcher } from './incidents/dispatcher.ts';
import { partnerFeatures } from './partner-api.ts';
import { createRateLimiter } from './rate-limit/limiter.ts';
import { responderAppRoutes } from './responders/app-files.ts';
import type { Metrics } from './metrics/metrics.ts';
import type { ResilientRateLimitStore } from './rate-limit/fallback-store.ts';
import { responderDocsRoutes } from './responders/openapi.ts';
import { responderRoutes } from './responders/routes.ts';
import { createOfferBell, type OfferBell } from './responders/offer-bell.ts';
import { createStaffLive, staffLiveOptions, type StaffLive } from './operations/live.ts';
import { STAFF_API_BASE, staffRoutes } from './staff-api.ts';
import { passLinkRoutes } from './access-codes/routes.ts';
import { kannelReportRoutes } from './messages/routes.ts';
import type { SmsGateway } from './messages/gateway.ts';
import { textingOf } from './messages/service.ts';
import type { ThreatEngine } from './threat/engine.ts';
import { deliveriesSince, type WebhookQueue } from './webhooks/queue.ts';
import type { SecretBox } from './secrets/secret-box.ts';

export interface AppDeps {
  config: Config;
  db: Db;
  /** The read lane for broad reads (server/db/read-lane.ts); default `db`. */
  readDb?: Db;
  clock: Clock;
  logger: Logger;
  rateLimitStore: ResilientRateLimitStore;
  /** Request counts and latency by route; absent, nothing is measured. */
  metrics?: Metrics;
  dispatcher?: Dispatcher;
  secretBox: SecretBox;
  /** The threat index the threat intelligence routes answer from. */
  threat: ThreatEngine;
  /** API keys by secret hash, never served after a revoke (server/auth/key-cache.ts); none: every request reads the key. */
  keyCache?: KeyCache;
  /** This host's reader of the event log, for the event streams (server/events/feed.ts). */
  eventFeed: EventFeed;
  /** Called after every write request that queued webhook deliveries, so they start at once. */
  onChange?: () => void;
  /** The webhook destinations cache and the count of queued deliveries, made with the server (shared with its sweeps and dispatch). */
  webhookQueue: WebhookQueue;
  /** The SMS gateway; none: SMS is off. */
  smsGateway?: SmsGateway;
  /** The upgrade's online index builds (PostgreSQL), for /health. */
  indexBuilds?: () => IndexBuildState;
  /** The look-out for responders' long polls; absent, the app makes its own (the server makes one to stop it). */
  offerBell?: OfferBell;
  /** The staff channel's reader; absent, the app makes its own. */
  staffLive?: StaffLive;
}

export const API_BASE = '/v1/external';
export const RESPONDER_API_BASE = '/v1/responder';
/** An open event stream asks this often whether its key or person may still read: a revocation closes it within about this. */
const STREAM_RECHECK_MS = 1000;

/** The Express app, not listening: `main.ts` listens, tests use it on port 0. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  // Only the balancers the operator names are believed for X-Forwarded-For (TRUST_PROXY).
  app.set('trust proxy', deps.config.TRUST_PROXY ?? false);
  app.set('query parser', 'simple');
  answerJsonDirectly(app);

  app.use(requestLog(deps.logger));
  if (deps.metrics) app.use(deps.metrics.http);
  app.use(express.json({ limit: deps.config.BODY_LIMIT_KB * 1024, strict: true, type: JSON_MEDIA_TYPES }));
  app.use(inputGuard);
  const onChange = deps.onChange;
  if (onChange) {
    app.use((req, res, next) => {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        const queued = deliveriesSince(deps.webhookQueue);
        res.on('finish', () => queued() && onChange());
      }
      next();
    });
  }

  const engine = isPostgresUrl(deps.config.DATABASE_URL) ? 'postgres' : 'sqlite';
  const limiter = createRateLimiter(deps.rateLimitStore, deps.clock);
  const sessionSettings = { idleTimeoutMin: deps.config.CONSOLE_IDLE_TIMEOUT_MIN, publicUrl: deps.config.PUBLIC_URL };
  const routeDeps: RouteDeps = {
    config: deps.config,
    db: deps.db,
    readDb: deps.readDb ?? deps.db,
    clock: deps.clock,
    logger: deps.logger,
    dispatcher: deps.dispatcher ?? noDispatcher,
    rateLimitStore: deps.rateLimitStore,
    secretBox: deps.secretBox,
    verifyPass: createPassVerifier(),
    guard: createGuard({ db: deps.db, clock: deps.clock, limiter, keys: deps.keyCache, sessions: { settings: sessionSettings } }),
    idempotent: idempotency({ ...deps, engine }),
    person: personAccess({ db: deps.db, clock: deps.clock, settings: sessionSettings }),
    audit: auditChanges(deps),
    engine,
    keyCache: deps.keyCache ?? uncachedKeys,
    webhookQueue: deps.webhookQueue,
    eventFeed: deps.eventFeed,
    eventStreams: createStreamRegistry({ maxPerCaller: deps.config.STREAM_MAX_PER_KEY, maxPerHost: deps.config.STREAM_MAX_PER_HOST, recheckMs: STREAM_RECHECK_MS }),
    indexBuilds: deps.indexBuilds,
    texting: textingOf(deps.config, { gateway: deps.smsGateway, secretBox: deps.secretBox, clock: deps.clock, webhookQueue: deps.webhookQueue }),
    offerBell: deps.offerBell ?? createOfferBell({ db: deps.db, engine, databaseUrl: deps.config.DATABASE_URL, logger: deps.logger }),
    staffLive: deps.staffLive ?? createStaffLive(staffLiveOptions(deps, engine)),
  };

  // Each request goes straight to the routers serving its first path segment (server/http/by-segment.ts).
  const api = express.Router();
  api.use(
    bySegment(partnerFeatures.map((feature) => feature.router({ ...routeDeps, rateLimitStore: deps.rateLimitStore, threat: deps.threat }))),
  );
  api.use(docsRoutes());

  // Canonical paths, and the same routes under /api/v1 for clients that followed the reference text literally.
  const mounted: RequestHandler = deps.metrics?.mounted ?? ((_req, _res, next) => next());
  app.use(`${API_BASE}/api/v1`, mounted, api);
  app.use(API_BASE, mounted, api);
  app.use(RESPONDER_API_BASE, mounted, responderDocsRoutes(), responderRoutes(routeDeps));
  // The operations centre, for the service's own staff (server/staff-api.ts).
  app.use(STAFF_API_BASE, mounted, staffRoutes(routeDeps));
  // The SMS gateway's delivery reports (server/messages/routes.ts).
  app.use('/v1/hooks', mounted, kannelReportRoutes(routeDeps));
  // A visitor's pass sent by text: the link's token is its only key (server/access-codes/pass-links.ts).
  app.use('/p', mounted, passLinkRoutes(routeDeps));
  app.use('/responder', responderAppRoutes());
  app.use('/console', consoleAppRoutes(undefined, { tileUrl: deps.config.CONSOLE_TILE_URL, tileDir: deps.config.CONSOLE_TILE_DIR, tileAttribution: deps.config.CONSOLE_TILE_ATTRIBUTION }));
  // The front door is the console: people open the host's address, programs call /v1/external.
  app.get('/', (_req, res) => res.redirect(302, '/console/'));
  app.use(routeNotFound);
  app.use(errorHandler(deps.logger));
  return app;
}
