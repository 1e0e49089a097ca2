import type { RequestHandler } from 'express';
import type { LogEvent } from 'kysely';
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { Clock } from '../clock.ts';
import type { ReadLaneCounts } from '../db/read-lane.ts';
import type { Db } from '../db/schema.ts';
import { dispatchDeadlineCounts } from '../dispatch/engine.ts';
import type { RateLimitMode } from '../rate-limit/fallback-store.ts';
import { textMessageCounts } from '../messages/service.ts';
import { webhookOutboxCounts } from '../webhooks/service.ts';
import { SeriesHistogram } from './series-histogram.ts';

/** What a PostgreSQL pool (pg.Pool) tells about its connections. */
export interface PoolCounts {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

export interface Metrics {
  /** This app's own registry: never prom-client's global one, so two apps in a process never mix. */
  registry: Registry;
  /** Counts and times every request by method, Express route pattern and status. */
  http: RequestHandler;
  /**
   * Put beside each mounted router: remembers its mount path, which Express forgets again when
   * an error unwinds to the app's error handler (the route itself is kept).
   */
  mounted: RequestHandler;
  /** Kysely's `log` hook: every query's duration, and its failure. */
  onQuery(event: LogEvent): void;
  /** A pooled connection failed; the same error heard twice (by the pool and by its client) counts once. */
  onPoolError(err: Error): void;
  /** Reads the database-backed gauges (outbox, dispatch deadlines, pool) at each scrape. */
  watch(deps: { db: Db; clock: Clock; poolCounts?: () => PoolCounts; readLaneCounts?: () => ReadLaneCounts; rateLimitMode: () => RateLimitMode; onRateLimitSwitch(listener: (mode: RateLimitMode) => void): void }): void;
}

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'tsaro_' });
  // Every request and every query is observed: label sets looked up once (series-histogram.ts).
  const requests = new SeriesHistogram(registry, {
    name: 'tsaro_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'],
    buckets: SECONDS,
    counter: { name: 'tsaro_http_requests_total', help: 'HTTP requests answered, by method, route pattern and status' },
  });
  const queries = new SeriesHistogram(registry, { name: 'tsaro_db_query_duration_seconds', help: 'Database query time (successful queries)', labelNames: [], buckets: SECONDS }).of();
  const queryErrors = new Counter({ name: 'tsaro_db_query_errors_total', help: 'Database queries that failed', registers: [registry] });
  const poolErrors = new Counter({ name: 'tsaro_db_pool_errors_total', help: 'Pooled PostgreSQL connections lost (each is replaced on next use)', registers: [registry] });
  const switches = new Counter({
    name: 'tsaro_rate_limit_fallbacks_total',
    help: 'Times Redis stopped answering and this host fell back to its own rate-limit windows',
    registers: [registry],
  });

  const http: RequestHandler = (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      // The route pattern (`/v1/external/incidents/:incidentId`), never the raw URL with its ids.
      // Mount paths match in any case, and req.baseUrl keeps the request's: lower-cased, so that
      // `/V1/EXTERNAL/...` cannot add a series per spelling (all mount paths are lower case).
      const base = ((res.locals as { mountedAt?: string }).mountedAt ?? req.baseUrl).toLowerCase();
      const route = req.route?.path === undefined ? 'unmatched' : `${base}${String(req.route.path)}`;
      requests.of(req.method, route, String(res.statusCode)).observe(Number(process.hrtime.bigint() - started) / 1e9);
    });
    next();
  };

  const counted = new WeakSet<Error>();
  const mounted: RequestHandler = (req, res, next) => {
    (res.locals as { mountedAt?: string }).mountedAt = req.baseUrl;
    next();
  };

  return {
    registry,
    http,
    mounted,
    onQuery(event) {
      if (event.level === 'error') queryErrors.inc();
      else queries.observe(event.queryDurationMillis / 1000);
    },
    onPoolError(err) {
      if (counted.has(err)) return;
      counted.add(err);
      poolErrors.inc();
    },
    watch(deps) {
      deps.onRateLimitSwitch((mode) => {
        if (mode === 'local') switches.inc();
      });
      new Gauge({
        name: 'tsaro_rate_limit_fallback',
        help: '1 while Redis does not answer and rate limits are kept per host; 0 when shared (or no Redis is configured)',
        registers: [registry],
        collect() {
          this.set(deps.rateLimitMode() === 'local' ? 1 : 0);
        },
      });
      new Gauge({
        name: 'tsaro_webhook_outbox_jobs',
        help: 'Webhook deliveries by state: pending (waiting, any attempt), retrying (pending after a failed attempt), failed (given up)',
        labelNames: ['state'],
        registers: [registry],
        async collect() {
          const counts = await webhookOutboxCounts(deps.db);
          for (const [state, n] of Object.entries(counts)) this.set({ state }, n);
        },
      });
      new Gauge({
        name: 'tsaro_text_messages',
        help: 'Text messages (SMS) by status: queued (waiting for the gateway, retried), sent (the gateway took it), delivered, failed, held (a host text over an hourly ceiling, never sent), merged (an alarm over a ceiling sent within another text)',
        labelNames: ['status'],
        registers: [registry],
        async collect() {
          const counts = await textMessageCounts(deps.db);
          for (const [status, n] of Object.entries(counts)) this.set({ status }, n);
        },
      });
      new Gauge({
        name: 'tsaro_dispatch_deadlines',
        help: 'Incidents waiting for a responder: waiting (dispatching), overdue (past the dispatch deadline, escalation due)',
        labelNames: ['state'],
        registers: [registry],
        async collect() {
          const counts = await dispatchDeadlineCounts(deps.db, deps.clock.now().toISOString());
          for (const [state, n] of Object.entries(counts)) this.set({ state }, n);
        },
      });
      const poolCounts = deps.poolCounts;
      if (poolCounts) {
        new Gauge({
          name: 'tsaro_db_pool_connections',
          help: 'PostgreSQL pool connections: total (open), idle, waiting (requests for a connection not yet served, including ones being opened)',
          labelNames: ['state'],
          registers: [registry],
          collect() {
            const pool = poolCounts();
            this.set({ state: 'total' }, pool.totalCount);
            this.set({ state: 'idle' }, pool.idleCount);
            this.set({ state: 'waiting' }, pool.waitingCount);
          },
        });
      }
      const readLaneCounts = deps.readLaneCounts;
      if (readLaneCounts) {
        new Gauge({
          name: 'tsaro_db_read_lane',
          help: 'Broad reads (lists, searches, stats, reports) on the read lane: running (holding a place), waiting (for a place, taking turns between organizations)',
          labelNames: ['state'],
          registers: [registry],
          collect() {
            const lane = readLaneCounts();
            this.set({ state: 'running' }, lane.running);
            this.set({ state: 'waiting' }, lane.waiting);
          },
        });
      }
    },
  };
}
