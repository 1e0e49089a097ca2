import express, { type Express } from 'express';
import type { Logger } from 'pino';
import { accessCodeRoutes } from './access-codes/routes.ts';
import { accessLogRoutes } from './access-logs/routes.ts';
import { createGuard } from './auth/authenticate.ts';
import { apiKeyRoutes } from './auth/routes.ts';
import type { Clock } from './clock.ts';
import type { Config } from './config.ts';
import type { Db } from './db/schema.ts';
import { docsRoutes } from './docs/routes.ts';
import { healthRoutes } from './health/routes.ts';
import { errorHandler, routeNotFound } from './http/errors.ts';
import { inputGuard } from './http/input-guard.ts';
import { requestLog } from './http/request-log.ts';
import type { RouteDeps } from './http/route-deps.ts';
import { idempotency } from './idempotency/middleware.ts';
import { noDispatcher, type Dispatcher } from './incidents/dispatcher.ts';
import { incidentRoutes } from './incidents/routes.ts';
import { organizationRoutes } from './organizations/routes.ts';
import { createRateLimiter } from './rate-limit/limiter.ts';
import type { RateLimitStore } from './rate-limit/store.ts';
import { responderRoutes } from './responders/routes.ts';
import type { ThreatEngine } from './threat/engine.ts';
import { threatRoutes } from './threat/routes.ts';
import { webhookRoutes } from './webhooks/routes.ts';
import type { SecretBox } from './webhooks/secret-box.ts';

export interface AppDeps {
  config: Config;
  db: Db;
  clock: Clock;
  logger: Logger;
  rateLimitStore: RateLimitStore;
  dispatcher?: Dispatcher;
  secretBox: SecretBox;
  /** The threat index the threat intelligence routes answer from. */
  threat: ThreatEngine;
  /** Called after every request that may have written events, so deliveries start at once. */
  onChange?: () => void;
}

export const API_BASE = '/v1/external';
export const RESPONDER_API_BASE = '/v1/responder';

/** The Express app, not listening: `main.ts` listens, tests use it on port 0. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  app.set('query parser', 'simple');

  app.use(requestLog(deps.logger));
  app.use(express.json({ limit: deps.config.BODY_LIMIT_KB * 1024, strict: true }));
  app.use(inputGuard);
  const onChange = deps.onChange;
  if (onChange) {
    app.use((req, res, next) => {
      if (req.method !== 'GET' && req.method !== 'HEAD') res.on('finish', onChange);
      next();
    });
  }

  const limiter = createRateLimiter(deps.rateLimitStore, deps.clock);
  const routeDeps: RouteDeps = {
    config: deps.config,
    db: deps.db,
    clock: deps.clock,
    logger: deps.logger,
    dispatcher: deps.dispatcher ?? noDispatcher,
    rateLimitStore: deps.rateLimitStore,
    secretBox: deps.secretBox,
    guard: createGuard({ db: deps.db, clock: deps.clock, limiter }),
    idempotent: idempotency(deps),
  };

  const api = express.Router();
  api.use(healthRoutes(deps));
  api.use(docsRoutes());
  api.use(incidentRoutes(routeDeps));
  api.use(apiKeyRoutes(routeDeps));
  api.use(accessCodeRoutes(routeDeps));
  api.use(accessLogRoutes(routeDeps));
  api.use(organizationRoutes(routeDeps));
  api.use(webhookRoutes(routeDeps));
  api.use(threatRoutes({ ...routeDeps, threat: deps.threat }));

  // Canonical paths, and the same routes under /api/v1 for clients that followed the reference text literally.
  app.use(`${API_BASE}/api/v1`, api);
  app.use(API_BASE, api);
  app.use(RESPONDER_API_BASE, responderRoutes(deps));
  app.use(routeNotFound);
  app.use(errorHandler(deps.logger));
  return app;
}
