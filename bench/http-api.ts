/**
 * Section `http-api`: the partner API over real HTTP against a bare Express "hello" server run
 * side by side, per database engine. Targets: GET /v1/external/incidents/{id} and POST
 * /v1/external/incidents (a new incident per request: no Idempotency-Key, no idempotency_key).
 *
 * Environment: BENCH_ENGINES (default `sqlite,postgres`), BENCH_TARGETS (default `get,post`; the
 * bare baseline always runs), BENCH_POSTGRES_ADMIN_URL,
 * BENCH_LOG_LEVEL / BENCH_LOG_DEST (see serve.ts), BENCH_SERVE_NODE_ARGS (extra node flags for
 * the server child, e.g. `--cpu-prof --cpu-prof-dir=bench/results/prof`), BENCH_SERVE_SCRIPT (another
 * server child with serve.ts's contract, for experiments; default bench/serve.ts).
 */
import { startChild, type BenchChild } from './lib/children.ts';
import { createEngineDatabase, type BenchDatabase } from './lib/databases.ts';
import { enginesWanted, type Engine } from './lib/settings.ts';
import { measure, type LoadTarget } from './lib/load.ts';
import type { AimCheck, BenchSection, ResultRow, SectionContext } from './lib/section.ts';

/** Aims, as ratios of the bare server's requests/s measured in the same block, and a latency bound. */
export const AIMS = { getRatio: 0.5, postRatio: 0.25, p99Ms: 25 } as const;

/** A valid create-incident body (as test/support/server.ts `incidentBody`), without idempotency_key. */
export const INCIDENT_BODY = {
  category: 'sos',
  severity: 'critical',
  subject: { name: 'Ada Obi', phone: '+2348012345678', reference: 'user-42' },
  location: { coordinates: [3.3792, 6.5244], address: '12 Admiralty Way, Lekki' },
};

interface HelloReady {
  url: string;
}

interface ServeReady {
  baseUrl: string;
  liveKey: string;
  organizationId: string;
}

type Target = 'get' | 'post';

function targetsWanted(): Target[] {
  const raw = process.env.BENCH_TARGETS?.trim();
  if (!raw) return ['get', 'post'];
  const targets = raw.split(',').map((t) => t.trim()).filter(Boolean);
  for (const target of targets) {
    if (target !== 'get' && target !== 'post') throw new Error(`BENCH_TARGETS: unknown target ${target}`);
  }
  return targets as Target[];
}

function serveNodeArgs(): string[] {
  return (process.env.BENCH_SERVE_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
}

/** One request before the load, so a broken setup fails loudly instead of producing a table of 4xx. */
async function expectStatus(target: LoadTarget, status: number): Promise<unknown> {
  const response = await fetch(target.url, { method: target.method ?? 'GET', headers: target.headers, body: target.body });
  const text = await response.text();
  if (response.status !== status) {
    throw new Error(`${target.method ?? 'GET'} ${target.url}: expected ${status}, got ${response.status}: ${text.slice(0, 300)}`);
  }
  return text ? JSON.parse(text) : undefined;
}

async function engineBlock(
  engine: Engine,
  database: BenchDatabase,
  hello: BenchChild<HelloReady>,
  context: SectionContext,
): Promise<ResultRow[]> {
  let server: BenchChild<ServeReady> | undefined;
  try {
    context.log(`[http-api/${engine}] starting Tsaro server`);
    server = await startChild<ServeReady>(`tsaro server (${engine})`, {
      script: process.env.BENCH_SERVE_SCRIPT || 'bench/serve.ts',
      env: { DATABASE_URL: database.url },
      nodeArgs: serveNodeArgs(),
    });
    const { baseUrl, liveKey } = server.ready;
    const auth = { authorization: `Bearer ${liveKey}` };
    const post: LoadTarget = {
      url: `${baseUrl}/incidents`,
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify(INCIDENT_BODY),
    };
    const created = (await expectStatus(post, 201)) as { incident: { incident_id: string } };
    const get: LoadTarget = { url: `${baseUrl}/incidents/${created.incident.incident_id}`, headers: auth };
    await expectStatus(get, 200);
    await expectStatus({ url: hello.ready.url }, 200);

    context.log(`[http-api/${engine}] bare hello`);
    const bare = await measure({ url: hello.ready.url }, context.load);
    const ratio = (rps: number) => (bare.requestsPerSecond > 0 ? rps / bare.requestsPerSecond : 0);
    const rows: ResultRow[] = [{ target: 'bare express hello', engine, measurement: bare }];
    const targets = targetsWanted();
    if (targets.includes('get')) {
      context.log(`[http-api/${engine}] GET /incidents/{id}`);
      const read = await measure(get, context.load);
      rows.push({ target: 'GET /incidents/{id}', engine, measurement: read, ratioToBare: ratio(read.requestsPerSecond) });
    }
    if (targets.includes('post')) {
      context.log(`[http-api/${engine}] POST /incidents`);
      const write = await measure(post, context.load);
      rows.push({ target: 'POST /incidents', engine, measurement: write, ratioToBare: ratio(write.requestsPerSecond) });
    }
    return rows;
  } finally {
    await server?.stop();
    await database.drop().catch((err: unknown) => context.log(`[http-api/${engine}] could not drop the database: ${String(err)}`));
  }
}

function checkAims(rows: ResultRow[], engine: string): AimCheck[] {
  const get = rows.find((r) => r.engine === engine && r.target.startsWith('GET'));
  const post = rows.find((r) => r.engine === engine && r.target.startsWith('POST'));
  const aims: AimCheck[] = [];
  if (get) {
    aims.push({
      aim: `GET req/s >= ${AIMS.getRatio} x bare`,
      engine,
      actual: `${get.ratioToBare!.toFixed(2)} x`,
      met: get.ratioToBare! >= AIMS.getRatio,
    });
  }
  if (post) {
    aims.push({
      aim: `POST req/s >= ${AIMS.postRatio} x bare`,
      engine,
      actual: `${post.ratioToBare!.toFixed(2)} x`,
      met: post.ratioToBare! >= AIMS.postRatio,
    });
  }
  for (const row of [get, post]) {
    if (!row) continue;
    const p99 = row.measurement.latencyMs.p99;
    aims.push({ aim: `${row.target.split(' ')[0]} p99 < ${AIMS.p99Ms} ms`, engine, actual: `${p99} ms`, met: p99 < AIMS.p99Ms });
  }
  return aims;
}

export const httpApiSection: BenchSection = {
  name: 'http-api',
  description: 'partner API (GET and POST incidents) vs a bare Express server, on SQLite and PostgreSQL',
  async run(context) {
    const rows: ResultRow[] = [];
    const aims: AimCheck[] = [];
    const notes: string[] = [];
    const engines = enginesWanted();

    context.log('[http-api] starting bare Express hello server');
    const hello = await startChild<HelloReady>('hello server', { script: 'bench/hello-server.ts' });
    try {
      for (const engine of engines) {
        const database = await createEngineDatabase(engine, (line) => {
          context.log(`[http-api] ${line}`);
          notes.push(line);
        });
        if (!database) continue;
        const blockRows = await engineBlock(engine, database, hello, context);
        rows.push(...blockRows);
        aims.push(...checkAims(blockRows, engine));
        for (const row of blockRows) {
          const m = row.measurement;
          if (m.errors || m.non2xx) {
            notes.push(`${row.target} (${engine}): ${m.errors} errors, ${m.non2xx} non-2xx, status codes ${JSON.stringify(m.statusCodes)}`);
          }
        }
      }
    } finally {
      await hello.stop();
    }
    notes.push(
      `Load is closed-loop (${context.load.connections} connections, each waits for its answer): mean latency ~ ` +
        `connections / req/s, so p99 < ${AIMS.p99Ms} ms needs well over ${Math.round((context.load.connections * 1000) / AIMS.p99Ms)} req/s.`,
    );
    return { name: 'http-api', rows, aims, notes };
  },
};
