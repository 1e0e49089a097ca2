import type { Router } from 'express';
import { accessCodeRouteList, accessCodeRoutes } from './access-codes/routes.ts';
import { accessLogRouteList, accessLogRoutes } from './access-logs/routes.ts';
import { auditRouteList, auditRoutes } from './audit/routes.ts';
import { apiKeyRouteList, apiKeyRoutes } from './auth/routes.ts';
import { dispatchCoverageRouteList, dispatchCoverageRoutes } from './dispatch/coverage.ts';
import { eventRouteList, eventRoutes } from './events/routes.ts';
import { healthRouteList, healthRoutes } from './health/routes.ts';
import type { RouteDefinition } from './http/define-route.ts';
import type { RouteDeps } from './route-deps.ts';
import { incidentRouteList, incidentRoutes } from './incidents/routes.ts';
import { kioskReplayRouteList, kioskReplayRoutes } from './kiosk-replay/routes.ts';
import { kioskRouteList, kioskRoutes } from './kiosks/routes.ts';
import { rollCallRouteList, rollCallRoutes } from './roll-calls/routes.ts';
import { organizationRouteList, organizationRoutes } from './organizations/routes.ts';
import { peopleRouteList, peopleRoutes } from './people/routes.ts';
import { siteRouteList, siteRoutes } from './sites/routes.ts';
import { messageRouteList, messageRoutes } from './messages/routes.ts';
import type { ResilientRateLimitStore } from './rate-limit/fallback-store.ts';
import type { ThreatEngine } from './threat/engine.ts';
import { threatRouteList, threatRoutes } from './threat/routes.ts';
import { webhookRouteList, webhookRoutes } from './webhooks/routes.ts';

/** What the partner features' routers are built from: the routes' dependencies, health's store and the threat index. */
export interface PartnerRouterDeps extends RouteDeps {
  rateLimitStore: ResilientRateLimitStore;
  threat: ThreatEngine;
}

interface PartnerFeature {
  /** The definitions the OpenAPI document is made from. */
  routes: readonly RouteDefinition<never>[];
  /** The router serving the same definitions. */
  router: (deps: PartnerRouterDeps) => Router;
}

/**
 * Every feature of the partner API, once: `createApp` serves their routers (by first path
 * segment, server/http/by-segment.ts) and the OpenAPI document lists their routes, in this order.
 * A new feature is one line here.
 */
export const partnerFeatures: readonly PartnerFeature[] = [
  { routes: healthRouteList, router: healthRoutes },
  { routes: incidentRouteList, router: incidentRoutes },
  { routes: dispatchCoverageRouteList, router: dispatchCoverageRoutes },
  { routes: accessCodeRouteList, router: accessCodeRoutes },
  { routes: accessLogRouteList, router: accessLogRoutes },
  { routes: kioskReplayRouteList, router: kioskReplayRoutes },
  { routes: organizationRouteList, router: organizationRoutes },
  { routes: threatRouteList, router: threatRoutes },
  { routes: webhookRouteList, router: webhookRoutes },
  { routes: eventRouteList, router: eventRoutes },
  { routes: apiKeyRouteList, router: apiKeyRoutes },
  { routes: auditRouteList, router: auditRoutes },
  { routes: peopleRouteList, router: peopleRoutes },
  { routes: kioskRouteList, router: kioskRoutes },
  { routes: rollCallRouteList, router: rollCallRoutes },
  { routes: siteRouteList, router: siteRoutes },
  { routes: messageRouteList, router: messageRoutes },
];
