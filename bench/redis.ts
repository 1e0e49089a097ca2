/**
 * Section `redis`: what Redis costs and what its outage costs. GET /v1/external/incidents/{id}
 * (SQLite) against the bare Express "hello" server, side by side, with rate limits kept
 * (1) in memory (no REDIS_URL), (2) in a private Redis that answers, (3) in the same Redis paused
 * with SIGSTOP (the breaker has opened: windows per host), (4) with REDIS_URL at a closed port.
 * The aim: an outage never makes a request slower than a healthy Redis does.
 *
 * Needs `redis-server` on PATH (a private one on a free port; the shared 6379 is never touched).
 */
import { spawnSync } from 'node:child_process';
import { freePort } from '../test/support/ports.ts';
import { startPrivateRedis, type PrivateRedis } from '../test/support/private-redis.ts';
import { INCIDENT_BODY } from './http-api.ts';
import { startChild, type BenchChild } from './lib/children.ts';
import { createSqliteDatabase } from './lib/databases.ts';
import { measure, type LoadTarget } from './lib/load.ts';
import type { AimCheck, BenchSection, ResultRow, SectionContext } from './lib/section.ts';

interface ServeReady {
  baseUrl: string;
  liveKey: string;
}

/** A server over its own SQLite file, with one incident to read; answers the GET target. */
async function serverWith(redisUrl: string, name: string): Promise<{ child: BenchChild<ServeReady>; get: LoadTarget; drop(): Promise<void> }> {
  const database = createSqliteDatabase();
  const child = await startChild<ServeReady>(`tsaro server (${name})`, {
    script: 'bench/serve.ts',
    env: { DATABASE_URL: database.url, BENCH_REDIS_URL: redisUrl },
  });
  const auth = { authorization: `Bearer ${child.ready.liveKey}` };
  const created = await fetch(`${child.ready.baseUrl}/incidents`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify(INCIDENT_BODY),
  });
  if (created.status !== 201) throw new Error(`${name}: POST /incidents answered ${created.status}`);
  const { incident } = (await created.json()) as { incident: { incident_id: string } };
  const get = { url: `${child.ready.baseUrl}/incidents/${incident.incident_id}`, headers: auth };
  const first = await fetch(get.url, { headers: get.headers });
  if (first.status !== 200) throw new Error(`${name}: GET answered ${first.status}`);
  return { child, get, drop: database.drop };
}

async function block(context: SectionContext, hello: BenchChild<{ url: string }>, redis: PrivateRedis): Promise<ResultRow[]> {
  const engine = 'sqlite';
  const bare = await measure({ url: hello.ready.url }, context.load);
  const ratio = (rps: number) => (bare.requestsPerSecond > 0 ? rps / bare.requestsPerSecond : 0);
  const rows: ResultRow[] = [{ target: 'bare express hello', engine, measurement: bare }];
  const cases: [string, string, (() => void) | undefined][] = [
    ['GET, limits in memory', '', undefined],
    ['GET, limits in Redis', redis.url, undefined],
    ['GET, Redis paused', redis.url, () => redis.pause()],
    ['GET, REDIS_URL closed port', `redis://127.0.0.1:${await freePort()}`, undefined],
  ];
  for (const [target, url, before] of cases) {
    context.log(`[redis] ${target}`);
    const server = await serverWith(url, target);
    try {
      before?.();
      const measurement = await measure(server.get, context.load);
      rows.push({ target, engine, measurement, ratioToBare: ratio(measurement.requestsPerSecond) });
    } finally {
      redis.resume();
      await server.child.stop();
      await server.drop();
    }
  }
  return rows;
}

export const redisSection: BenchSection = {
  name: 'redis',
  description: 'GET incidents with rate limits in memory, in Redis, with Redis paused, and at a closed port, vs a bare Express server',
  async run(context) {
    if (spawnSync('redis-server', ['--version']).status !== 0) {
      return { name: 'redis', rows: [], aims: [], notes: ['skipped: redis-server is not on PATH'] };
    }
    const redis = await startPrivateRedis();
    const hello = await startChild<{ url: string }>('hello server', { script: 'bench/hello-server.ts' });
    try {
      const rows = await block(context, hello, redis);
      const rps = (target: string) => rows.find((row) => row.target === target)!.measurement.requestsPerSecond;
      const healthy = rps('GET, limits in Redis');
      const aims: AimCheck[] = ['GET, Redis paused', 'GET, REDIS_URL closed port'].map((target) => ({
        aim: `${target}: req/s >= 0.9 x limits in Redis`,
        engine: 'sqlite',
        actual: `${(rps(target) / healthy).toFixed(2)} x`,
        met: rps(target) >= 0.9 * healthy,
      }));
      const notes = rows
        .filter((row) => row.measurement.errors || row.measurement.non2xx)
        .map((row) => `${row.target}: ${row.measurement.errors} errors, ${row.measurement.non2xx} non-2xx ${JSON.stringify(row.measurement.statusCodes)}`);
      return { name: 'redis', rows, aims, notes };
    } finally {
      await hello.stop();
      redis.resume();
      await redis.stop();
    }
  },
};
