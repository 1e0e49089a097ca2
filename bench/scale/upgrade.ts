/**
 * The upgrade of a generated year from an older version's schema (issue #45): a year built with
 * an older tree's server (`BENCH_SCALE_SERVE_SCRIPT=<that tree>/bench/serve.ts npm run scale`:
 * before 0036, its schema without tallies; later, that tree's own fold), then this code's server
 * started on it. Measured: the time to serve (the migrations run first, every host waiting for
 * their lock: service stops for that long), each migration's share of it (from the times
 * `schema_migrations` records as each one ends), the online index builds after it serves
 * (PostgreSQL: until `/health` no longer lists `indexes`), the background fold catching up with
 * the year's settled rows left untallied (all of them from before 0036; none from a later
 * schema), and SOSs sent at a steady 50 a second from the moment it serves until all of that is
 * done, with their p99.
 */
import { Worker } from 'node:worker_threads';
import pg from 'pg';
import { startChild, type BenchChild } from '../lib/children.ts';
import { percentile } from '../lib/stats.ts';
import type { Engine } from '../lib/settings.ts';
import { openConn, sqlitePath } from './conn.ts';
import type { GeneratedOrganization } from './generate.ts';
import { openLoop, sosOf, type OpenLoop } from './load.ts';

export interface UpgradeReport {
  /** The year's last migration before the upgrade. */
  from: string;
  /** The migrations the upgrade ran, in order, each with the milliseconds it took (the first's from the server's start). */
  migrations: Array<{ name: string; ms: number }>;
  /** Start to serving: the migrations (SQLite: its indexes and text search built in them). */
  toServeMs: number;
  /** Serving to every index built (PostgreSQL; 0 on SQLite, which built them before serving). */
  indexesMs: number;
  /** Serving to no settled row left out of the tallies. */
  foldMs: number;
  /** SOSs at 50 a second while the indexes were built and the year folded. */
  sos: OpenLoop;
}

/**
 * The year's settled rows not yet in the tallies, over the tables that hold most of it: rows made
 * before the upgrade began (the SOSs sent during it make new events and audit entries that the
 * fold takes a pass later, so a count of every untallied row never reaches 0 while they run).
 * SQLite reads each table's partial index of untallied rows by name (its planner took
 * `access_logs_by_status` and walked every checked-out visit: seconds on a year).
 */
const untalliedBefore = (before: string, engine: Engine) => {
  const from = (table: string) => (engine === 'sqlite' ? `${table} indexed by ${table}_untallied` : table);
  return `select
  (select count(*) from ${from('access_logs')} where tallied = 0 and status = 'checked_out' and checked_in_at < '${before}')
  + (select count(*) from ${from('incidents')} where tallied = 0 and status in ('resolved', 'cancelled') and created_at < '${before}')
  + (select count(*) from ${from('events')} where tallied = 0 and created_at < '${before}')
  + (select count(*) from ${from('audit_log')} where tallied = 0 and created_at < '${before}') as n`;
};

/**
 * SQLite's count on a thread of its own: better-sqlite3 is synchronous, and a count that takes
 * seconds on the bench's event loop held the SOSs' sends and answers, timing the bench as the server.
 */
function countOffThread(path: string, text: string): Promise<number> {
  const code = `const { parentPort, workerData } = require('node:worker_threads');
const Database = require('better-sqlite3');
const db = new Database(workerData.path, { readonly: true });
try { parentPort.postMessage(Number(db.prepare(workerData.text).get().n)); } finally { db.close(); }`;
  return new Promise((resolve, reject) => {
    const worker = new Worker(code, { eval: true, workerData: { path, text } });
    worker.once('message', (n: number) => resolve(n));
    worker.once('error', reject);
  });
}

async function untallied(databaseUrl: string, engine: Engine, before: string): Promise<number> {
  const UNTALLIED = untalliedBefore(before, engine);
  if (engine === 'postgres') {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      return Number((await client.query<{ n: string }>(UNTALLIED)).rows[0]!.n);
    } finally {
      await client.end();
    }
  }
  return countOffThread(sqlitePath(databaseUrl), UNTALLIED);
}

/** The migrations applied, in order, with the instant each ended. */
async function appliedMigrations(databaseUrl: string, engine: Engine): Promise<Array<{ name: string; timestamp: string }>> {
  const conn = await openConn(engine, databaseUrl);
  try {
    return await conn.rows<{ name: string; timestamp: string }>('select name, timestamp from schema_migrations order by name');
  } finally {
    await conn.close();
  }
}

export async function measureUpgrade(databaseUrl: string, engine: Engine, big: GeneratedOrganization, log: (line: string) => void): Promise<UpgradeReport> {
  const before = await appliedMigrations(databaseUrl, engine);
  const from = before.at(-1)?.name ?? '(none)';
  log(`upgrading a year at ${from}`);
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const server: BenchChild<{ baseUrl: string }> = await startChild(`tsaro server (${engine}, upgrading a year)`, {
    script: 'bench/serve.ts',
    env: { DATABASE_URL: databaseUrl, BENCH_SERVE_ORGANIZATION: '0' },
    readyTimeoutMs: 3_600_000,
  });
  const serving = performance.now();
  const toServeMs = serving - started;
  log(`serving after ${Math.round(toServeMs / 1000)} s of migrations`);
  let indexesMs = 0;
  let foldMs = 0;
  const rounds: OpenLoop[] = [];
  try {
    let done = false;
    const watch = (async () => {
      for (;;) {
        // A loaded server may drop a health check's connection: asked again on the next turn.
        const health = (await fetch(`${server.ready.baseUrl}/health`).then((answer) => answer.json(), () => ({ indexes: { pending: -1, building: null } }))) as { indexes?: { pending: number; building: string | null } };
        if (!health.indexes && !indexesMs) {
          indexesMs = performance.now() - serving;
          log(`indexes built ${Math.round(indexesMs / 1000)} s after serving`);
        }
        if (!foldMs && (await untallied(databaseUrl, engine, startedAt)) === 0) {
          foldMs = performance.now() - serving;
          log(`the year folded ${Math.round(foldMs / 1000)} s after serving`);
        }
        if (indexesMs && foldMs) return void (done = true);
        await new Promise((resolve) => setTimeout(resolve, 2000));
      }
    })();
    // SOSs at 50 a second, ten seconds a round, until the upgrade's work is done.
    for (let round = 0; !done; round++) rounds.push(await openLoop(sosOf(server.ready.baseUrl, big, `upgrade-${round}`), 50, 10));
    await watch;
  } finally {
    await server.stop();
  }
  const known = new Set(before.map((migration) => migration.name));
  let previous = Date.parse(startedAt);
  const migrations = (await appliedMigrations(databaseUrl, engine))
    .filter((migration) => !known.has(migration.name))
    .map((migration) => {
      const ended = Date.parse(migration.timestamp);
      const ms = ended - previous;
      previous = ended;
      return { name: migration.name, ms };
    });
  return { from, migrations, toServeMs, indexesMs, foldMs, sos: mergeRounds(rounds) };
}

/** The rounds' answers together (p99 over all of them). */
function mergeRounds(rounds: OpenLoop[]): OpenLoop {
  const all = rounds.flatMap((round) => round.latencies);
  const sorted = all.sort((a, b) => a - b);
  const statuses: Record<string, number> = {};
  for (const round of rounds) for (const [status, n] of Object.entries(round.statuses)) statuses[status] = (statuses[status] ?? 0) + n;
  return {
    sent: rounds.reduce((n, round) => n + round.sent, 0),
    answered: sorted.length,
    failed: rounds.reduce((n, round) => n + round.failed, 0),
    statuses,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted.at(-1) ?? 0,
    latencies: sorted,
  };
}
