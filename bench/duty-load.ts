/**
 * `node --import tsx bench/duty-load.ts`: what 1,000 responders on duty cost the database
 * (issue #47). One server (bench/serve.ts, a child process) on a fresh PostgreSQL database;
 * BENCH_DUTY_N responders (default 1,000) added directly; then, for BENCH_DUTY_S seconds each
 * (default 20):
 *
 *   idle      nobody calls: the server's own timers only
 *   fixes     every responder sends a fix (PUT /v1/responder/availability) every
 *             BENCH_DUTY_FIX_EVERY_S seconds (default 5), spread evenly
 *   fixes+polls  the same, and half of them hold a long poll (GET /offers?wait=25) open all the
 *             time, as the app does, renewing each as it ends
 *
 * Reported per phase: PostgreSQL's transactions per second for the database (pg_stat_database
 * xact_commit + xact_rollback: every statement outside a transaction is one), rows read per
 * second (tup_returned + tup_fetched), the server process's CPU (% of one core), the offer
 * bell's checks, and the fixes and polls answered. PostgreSQL only (the engine of several hosts).
 * Environment: BENCH_DUTY_N, BENCH_DUTY_S, BENCH_DUTY_FIX_EVERY_S, BENCH_POSTGRES_ADMIN_URL.
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import pg from 'pg';
import { systemClock } from '../server/clock.ts';
import { openDatabase } from '../server/db/database.ts';
import { addResponder } from '../server/responders/service.ts';
import { startChild } from './lib/children.ts';
import { runBenchScript } from './lib/script.ts';
import { createPostgresDatabase, postgresAdminUrl } from './lib/databases.ts';
import { intFromEnv, sleep } from './lib/settings.ts';

const N = intFromEnv('BENCH_DUTY_N', 1000, 1);
const PHASE_S = intFromEnv('BENCH_DUTY_S', 20, 1);
const FIX_EVERY_S = intFromEnv('BENCH_DUTY_FIX_EVERY_S', 5, 1);

const cpuTicks = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]);
};

async function main() {
  const database = await createPostgresDatabase(postgresAdminUrl());
  const child = await startChild<{ baseUrl: string; pid: number }>('serve', { script: 'bench/serve.ts', env: { DATABASE_URL: database.url, BENCH_LOG_DEST: '/dev/null' } });
  const responderBase = child.ready.baseUrl.replace('/v1/external', '/v1/responder');
  const opened = openDatabase(database.url, { poolSize: 4 });
  const tokens: string[] = [];
  for (let i = 0; i < N; i++) {
    const { token } = await addResponder(opened.db, systemClock, {
      name: `Bench Responder ${i}`,
      phone: `+23480${String(40_000_000 + i)}`,
      // Spread over Lagos, none near another's incident (no incidents are made).
      latitude: 6.4 + (i % 40) * 0.005,
      longitude: 3.3 + Math.floor(i / 40) * 0.005,
      environment: 'live',
    });
    tokens.push(token);
  }
  await opened.close();
  const stats = new pg.Client({ connectionString: database.url });
  await stats.connect();
  const dbName = new URL(database.url).pathname.slice(1);
  const counters = async () => {
    const row = (await stats.query('select xact_commit + xact_rollback as xacts, tup_returned + tup_fetched as rows from pg_stat_database where datname = $1', [dbName])).rows[0];
    return { xacts: Number(row.xacts), rows: Number(row.rows) };
  };

  const agent = new Agent({ keepAlive: true, maxSockets: 2000 });
  const call = (method: string, path: string, token: string, body?: unknown) =>
    new Promise<number>((resolve) => {
      const req = request(responderBase + path, { method, agent, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', () => resolve(0));
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });

  let running = { fixes: false, polls: false };
  let fixes = 0;
  let polls = 0;
  let failures = 0;
  // Each responder's fixes, spread evenly over the period.
  const fixLoops = tokens.map(async (token, i) => {
    await sleep(((i / N) * FIX_EVERY_S * 1000) | 0);
    for (;;) {
      if (running.fixes) {
        const status = await call('PUT', '/availability', token, { available: true, latitude: 6.4 + Math.random() * 0.2, longitude: 3.3 + Math.random() * 0.2 });
        if (status === 200) fixes++;
        else failures++;
      }
      await sleep(FIX_EVERY_S * 1000);
      if (stopped) return;
    }
  });
  let stopped = false;
  const pollLoops = tokens.slice(0, N / 2).map(async (token) => {
    for (;;) {
      if (stopped) return;
      if (!running.polls) {
        await sleep(200);
        continue;
      }
      const status = await call('GET', '/offers?wait=25', token);
      if (status === 200) polls++;
      else failures++;
    }
  });

  const phase = async (name: string) => {
    await sleep(2000);
    const before = await counters();
    const cpu0 = cpuTicks(child.pid);
    const [f0, p0] = [fixes, polls];
    const t0 = Date.now();
    await sleep(PHASE_S * 1000);
    const after = await counters();
    const seconds = (Date.now() - t0) / 1000;
    const result = {
      phase: name,
      transactions_per_s: Math.round((after.xacts - before.xacts) / seconds),
      rows_read_per_s: Math.round((after.rows - before.rows) / seconds),
      server_cpu_pct: Math.round(((cpuTicks(child.pid) - cpu0) / 100 / seconds) * 100),
      fixes_per_s: Math.round((fixes - f0) / seconds),
      polls_answered: polls - p0,
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return result;
  };

  process.stdout.write(`${JSON.stringify({ responders: N, phase_s: PHASE_S, fix_every_s: FIX_EVERY_S, long_polling: N / 2 })}\n`);
  await phase('idle');
  running = { fixes: true, polls: false };
  await phase('fixes');
  running = { fixes: true, polls: true };
  // Every poller waiting before the measure starts.
  await sleep(3000);
  await phase('fixes+polls');
  stopped = true;
  running = { fixes: false, polls: false };
  process.stdout.write(`${JSON.stringify({ failures })}\n`);
  await stats.end();
  await child.stop();
  agent.destroy();
  void fixLoops;
  void pollLoops;
}

runBenchScript(main);
