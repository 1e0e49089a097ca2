import type { StreamRegistry } from './events/stream-registry.ts';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { PassVerifier } from './access-codes/pass-keys.ts';
import type { KeyCache } from './auth/key-cache.ts';
import type { Clock } from './clock.ts';
import type { Config } from './config.ts';
import type { IndexBuildState } from './db/online-indexes.ts';
import type { Engine } from './db/database.ts';
import type { Guard, GuardOptions, IdempotentMode, RouteDefinition } from './http/define-route.ts';
import type { Db } from './db/schema.ts';
import type { Dispatcher } from './incidents/dispatcher.ts';
import type { EventFeed } from './events/feed.ts';
import type { RateLimitStore } from './rate-limit/store.ts';
import type { SecretBox } from './secrets/secret-box.ts';
import type { WebhookQueue } from './webhooks/queue.ts';
import type { TextingDeps } from './messages/service.ts';
import type { OfferBell } from './responders/offer-bell.ts';
import type { StaffLive } from './operations/live.ts';

/** What every feature router is built from. */
export interface RouteDeps {
  config: Config;
  db: Db;
  /** The read lane (server/db/read-lane.ts): what `lane: 'reads'` routes read from. */
  readDb: Db;
  clock: Clock;
  logger: Logger;
  dispatcher: Dispatcher;
  /** Sliding windows beyond the per-key limit (unknown access codes per key). */
  rateLimitStore: RateLimitStore;
  /** Verifies signed passes, keeping the tenants' public keys (one per app). */
  verifyPass: PassVerifier;
  /** Seals and opens webhook signing secrets. */
  secretBox: SecretBox;
  /** Authenticate (401, 402), then scope (403), then rate limit (429): the contract's order. */
  guard: Guard;
  /** Idempotency-Key handling for a POST, PATCH or DELETE route. */
  idempotent: (mode: IdempotentMode) => RequestHandler;
  /** A signed-in console person, for `person` routes. */
  person: (options: GuardOptions | undefined) => RequestHandler;
  /** Records each change in the audit log. */
  audit: (route: RouteDefinition<never>) => RequestHandler;
  /** The database engine, for the few statements that differ (advisory locks). */
  engine: Engine;
  /** This host's API-key cache: a revoke through it holds the cache until it has answered. */
  keyCache: KeyCache;
  /** The app's webhook destinations and count of queued deliveries (server/webhooks/queue.ts). */
  webhookQueue: WebhookQueue;
  /** This host's one reader of the event log, which feeds the open event streams. */
  eventFeed: EventFeed;
  /** This host's open event streams: their ceilings and their recheck. */
  eventStreams: StreamRegistry;
  /** The upgrade's online index builds, for /health (PostgreSQL); absent on SQLite. */
  indexBuilds?: () => IndexBuildState;
  /** Text messages: the SMS gateway (none: SMS is off), links, and the sealing key of delivery-report tokens. */
  texting: TextingDeps;
  /** The host's one look-out for responders' long polls (server/responders/offer-bell.ts). */
  offerBell: OfferBell;
  /** The host's one reader behind the staff channel, GET /v1/staff/live (server/operations/live.ts). */
  staffLive: StaffLive;
}
