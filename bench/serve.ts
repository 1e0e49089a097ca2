/**
 * The Tsaro server under test, in a process of its own: `startServer` on 127.0.0.1, port 0, over
 * DATABASE_URL (set by the parent), then one enterprise organization whose rate limit is raised
 * out of the way. Prints `{"benchReady":true,"baseUrl":...,"liveKey":...,"sandboxKey":...,"organizationId":...}`.
 *
 * Environment: DATABASE_URL (required), BENCH_LOG_LEVEL (LOG_LEVEL of the server, default warn),
 * BENCH_LOG_DEST (a file for the logs, e.g. /dev/null; default stdout, which the parent drains),
 * BENCH_SERVE_DELIVER_WEBHOOKS (`0`: webhook deliveries are queued but not sent, so a backlog
 * builds up for the next server on the same database; default on), BENCH_SANDBOX_SPEED
 * (SANDBOX_SPEED of the server: how fast the simulated network plays out sandbox incidents; default 1),
 * BENCH_REDIS_URL (REDIS_URL of the server; default none: rate limits in memory).
 * BENCH_SERVE_ORGANIZATION (`0`: make no organization; another host on the same database).
 * BENCH_DISPATCH_WINDOW_S (DISPATCH_WINDOW_S of the server; default 60), BENCH_SERVE_RUN_DISPATCH
 * (`0`: this host runs no dispatch sweep, so another host's sweep escalates every incident).
 */
import { subscribe } from 'node:diagnostics_channel';
import { constants as perfConstants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { pino } from 'pino';
import { systemClock } from '../server/clock.ts';
import { loadConfig } from '../server/config.ts';
import { BENCH_SECRETS_KEY } from './lib/settings.ts';
import { createLogger } from '../server/logger.ts';
import { changeOrganization, createOrganization } from '../server/organizations/service.ts';
import { startServer } from '../server/server.ts';
import { announceReady, stopOnSignalOrOrphan } from './lib/child-side.ts';

/** High enough that no benchmark run meets a 429. */
export const BENCH_RATE_LIMIT_PER_MINUTE = 100_000_000;

async function main() {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) throw new Error('serve.ts: DATABASE_URL is required');
  // The database's sizing settings (DATABASE_POOL_SIZE, DATABASE_READ_CONCURRENCY, ...) as the
  // bench was given them, so a deployment's own sizing can be measured (docs/operations.md).
  const sizing = Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('DATABASE_') && name !== 'DATABASE_URL'));
  const config = loadConfig({
    ...sizing,
    DATABASE_URL: databaseUrl,
    PORT: '0',
    HOST: '127.0.0.1',
    DEMO: '0',
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    SANDBOX_SPEED: process.env.BENCH_SANDBOX_SPEED,
    DISPATCH_WINDOW_S: process.env.BENCH_DISPATCH_WINDOW_S,
    // The webhook benchmark's receiver listens on loopback.
    WEBHOOK_ALLOW_PRIVATE: '1',
    REDIS_URL: process.env.BENCH_REDIS_URL || undefined,
    // Several bench servers share one PostgreSQL database, which needs a sealing key they all hold.
    SECRETS_KEY: BENCH_SECRETS_KEY,
  });
  const dest = process.env.BENCH_LOG_DEST;
  const logger = dest ? createLogger(config.LOG_LEVEL, pino.destination({ dest, sync: false })) : undefined;

  const running = await startServer(config, {
    clock: systemClock,
    ...(logger && { logger }),
    deliverWebhooks: process.env.BENCH_SERVE_DELIVER_WEBHOOKS !== '0',
    runDispatch: process.env.BENCH_SERVE_RUN_DISPATCH !== '0',
  });
  // On stop, one line on stderr: this process's CPU time per request (user + system, counted
  // only over the quarter seconds in which it served requests, so start-up work and idle sweeps
  // are left out; unlike req/s, barely moved by what else runs on the machine), SQLite's commits
  // and the transactions they carried, and the event loop's delay (a synchronous fsync, a long
  // GC or a slow handler shows there).
  let requests = 0;
  subscribe('http.server.request.start', () => requests++);
  const busy = { requests: 0, cpuUs: 0 };
  let last = { requests: 0, cpu: process.cpuUsage() };
  const sampler = setInterval(() => {
    const cpu = process.cpuUsage();
    if (requests > last.requests) {
      busy.requests += requests - last.requests;
      busy.cpuUs += cpu.user - last.cpu.user + (cpu.system - last.cpu.system);
    }
    last = { requests, cpu };
  }, 250);
  sampler.unref();
  const loopDelay = monitorEventLoopDelay({ resolution: 1 });
  loopDelay.enable();
  // Garbage collection pauses: young collections that take milliseconds mean objects that should
  // die young are surviving (docs/benchmarks.md, "A closure that kept every request").
  const gc = { young: [] as number[], full: [] as number[] };
  const gcObserver = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as unknown as { detail?: { kind?: number } }).detail?.kind;
      if (kind === perfConstants.NODE_PERFORMANCE_GC_MINOR) gc.young.push(entry.duration);
      else if (kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR) gc.full.push(entry.duration);
    }
  });
  gcObserver.observe({ entryTypes: ['gc'] });
  const pauses = (durations: number[]) => {
    if (!durations.length) return '0';
    const sorted = [...durations].sort((a, b) => a - b);
    return `${sorted.length} (median ${sorted[sorted.length >> 1]!.toFixed(1)} ms, longest ${sorted.at(-1)!.toFixed(1)} ms)`;
  };
  stopOnSignalOrOrphan(async () => {
    clearInterval(sampler);
    loopDelay.disable();
    gcObserver.disconnect();
    const stats = running.database.groupCommit?.stats;
    const ms = (ns: number) => (ns / 1e6).toFixed(1);
    process.stderr.write(
      `bench serve ${process.pid} (${running.database.engine}): ${busy.requests} requests, ` +
        `CPU ${busy.requests ? Math.round(busy.cpuUs / busy.requests) : 0} µs a request; ` +
        (stats ? `${stats.commits} group commits (${Math.round(stats.commitMs)} ms in COMMIT, longest ${Math.round(stats.commitMaxMs)} ms; ${Math.round(stats.syncMs)} ms in WAL syncs off the event loop, longest ${Math.round(stats.syncMaxMs)} ms; ${stats.checkpoints} checkpoints on their thread, ${Math.round(stats.checkpointMs)} ms) carried ${stats.transactions} transactions; ` : '') +
        `event loop delay p50 ${ms(loopDelay.percentile(50))} ms, p99 ${ms(loopDelay.percentile(99))} ms, max ${ms(loopDelay.max)} ms; ` +
        `young collections ${pauses(gc.young)}, full collections ${pauses(gc.full)}\n`,
    );
    await running.stop();
  });
  if (process.env.BENCH_SERVE_ORGANIZATION === '0') {
    // Another host on a database whose organization a first child made.
    announceReady({ baseUrl: running.baseUrl, engine: running.database.engine, pid: process.pid });
    return;
  }

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
