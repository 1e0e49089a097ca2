/**
 * Section `dispatch`: the issue's two figures.
 *
 *   1. Choosing the nearest available responders among BENCH_DISPATCH_RESPONDERS (default 50,000)
 *      spread uniformly over Nigeria's bounding box (lat 4.3–13.9, lng 2.7–14.6; seeded, so every
 *      run has the same responders and points), for BENCH_DISPATCH_CHOICES (2,000) random incident
 *      points, after 200 discarded ones. Time per choice of:
 *        - baseline: a plain linear scan that only computes the distance to every responder and
 *          counts those within the radius: no list, no sort (distanceKm's formula, inlined by hand);
 *        - `chooseNearestResponders` over all of them: the worst case, no prefilter;
 *        - the real path, per engine: `availableRespondersNear` (the SQL bounding-box prefilter) on a
 *          database holding them all (bulk-inserted after the migrations), then
 *          `chooseNearestResponders` on the rows it returns, as `offerRound` does.
 *      Radius and count are the server's defaults (DISPATCH_RADIUS_KM 15, DISPATCH_OFFER_COUNT 3).
 *      For every point the methods run one after the other, in rotating order, in this process, so
 *      their ratios compare like with like on a noisy machine.
 *   2. Sandbox at full speed: a Tsaro child (bench/serve.ts) with SANDBOX_SPEED =
 *      BENCH_DISPATCH_SPEED (default 1000) and its normal dispatch sweep (every second). One at a
 *      time, BENCH_DISPATCH_INCIDENTS (30) sandbox incidents (after 2 discarded), each after a
 *      random pause of 0–1 s (so creations fall at random phases of the sweep): the time from
 *      sending POST /incidents to the first GET /incidents/{id} (every BENCH_DISPATCH_POLL_MS,
 *      default 15) that shows `assigned` (or later), and the server's own created_at →
 *      responder.assigned_at. Then, on the first engine only, BENCH_DISPATCH_SLOW_INCIDENTS (3; 0
 *      skips) at SANDBOX_SPEED 1, if they fit in about 30 s.
 *
 * Environment: BENCH_ENGINES (default `sqlite,postgres`), BENCH_POSTGRES_ADMIN_URL,
 * BENCH_DISPATCH_RESPONDERS, BENCH_DISPATCH_CHOICES, BENCH_DISPATCH_INCIDENTS, BENCH_DISPATCH_SPEED,
 * BENCH_DISPATCH_SLOW_INCIDENTS, BENCH_DISPATCH_POLL_MS, BENCH_LOG_LEVEL / BENCH_LOG_DEST (see serve.ts).
 */
import { createHash } from 'node:crypto';
import { CompiledQuery, sql } from 'kysely';
import { loadConfig } from '../server/config.ts';
import { migrateToLatest, openDatabase, type OpenedDatabase } from '../server/db/database.ts';
import type { ResponderRow } from '../server/db/schema.ts';
import { chooseNearestResponders, distanceKm, type Candidate, type Choice, type Point } from '../server/dispatch/nearest.ts';
import { SIMULATED_STEP_SECONDS } from '../server/dispatch/simulated-network.ts';
import { availableRespondersNear } from '../server/dispatch/store.ts';
import { INCIDENT_BODY } from './http-api.ts';
import { startChild, type BenchChild } from './lib/children.ts';
import { createEngineDatabase, type BenchDatabase } from './lib/databases.ts';
import { enginesWanted, intFromEnv, sleep, type Engine } from './lib/settings.ts';
import { fmt, seededRandom, summarize } from './lib/stats.ts';
import type { BenchSection, SectionContext, SectionTable } from './lib/section.ts';

/** Nigeria's bounding box (degrees). */
const NIGERIA = { minLat: 4.3, maxLat: 13.9, minLng: 2.7, maxLng: 14.6 } as const;
const RESPONDER_SEED = 0x75a_0001;
const POINT_SEED = 0x75a_0002;
const PAUSE_SEED = 0x75a_0003;
const WARMUP_CHOICES = 200;
const WARMUP_INCIDENTS = 2;
/** Rows per INSERT: 13 columns x 1,000 stays under both engines' bound-parameter limits. */
const INSERT_CHUNK = 1_000;
/** The server's dispatch sweep interval (server/server.ts `setInterval(..., 1000)`). */
const SWEEP_INTERVAL_MS = 1_000;
/** The SANDBOX_SPEED 1 run is skipped when its worst case would be longer than this. */
const SLOW_RUN_BUDGET_MS = 30_000;
/** Statuses at or past the assignment. */
const ASSIGNED_OR_LATER = new Set(['assigned', 'responding', 'on_scene', 'resolved']);

interface ServeReady {
  baseUrl: string;
  sandboxKey: string;
}


/** Uniform in latitude and longitude over Nigeria's bounding box. */
function pointsOverNigeria(count: number, random: () => number): Point[] {
  return Array.from({ length: count }, () => ({
    latitude: NIGERIA.minLat + random() * (NIGERIA.maxLat - NIGERIA.minLat),
    longitude: NIGERIA.minLng + random() * (NIGERIA.maxLng - NIGERIA.minLng),
  }));
}

/** Microseconds with a precision that suits their size. */
const us = (ms: number) => fmt(ms * 1000, ms < 0.1 ? 1 : 0);

// ---------------------------------------------------------------------------------------------
// Part 1: the nearest choice among 50,000
// ---------------------------------------------------------------------------------------------

/** The dispatch engine's real path for one incident, on one database. */
async function prefilterThenChoose(database: OpenedDatabase, point: Point, radiusKm: number, count: number) {
  const rows = await availableRespondersNear(database.db, 'live', point, radiusKm);
  const candidates = rows.map((r) => ({ responderId: r.responder_id, latitude: Number(r.latitude), longitude: Number(r.longitude) }));
  return { choice: chooseNearestResponders(candidates, point, radiusKm, count), candidates: candidates.length };
}

const RAD = Math.PI / 180;
/** Mean Earth radius, as in server/dispatch/nearest.ts. */
const EARTH_RADIUS_KM = 6371.0088;

/**
 * The baseline: every distance and its comparison with the radius, nothing else (no list, no
 * sort); the count is returned so the work cannot be skipped. The haversine is `distanceKm`'s,
 * written into the loop (checked against it by `checkBaselineFormula`): with a call, V8 inlines
 * it in some runs and not in others (we saw 1.0 ms and 1.7 ms for the same scan), and tsx's
 * CommonJS output reads an imported function through a getter on every call; the baseline must
 * not move with either.
 */
function scanDistancesOnly(responders: readonly Candidate[], point: Point, radiusKm: number): number {
  const lat = point.latitude * RAD;
  const cosLat = Math.cos(lat);
  let within = 0;
  for (const responder of responders) {
    const dLat = (responder.latitude - point.latitude) * RAD;
    const dLng = (responder.longitude - point.longitude) * RAD;
    const h = Math.sin(dLat / 2) ** 2 + cosLat * Math.cos(responder.latitude * RAD) * Math.sin(dLng / 2) ** 2;
    if (2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h))) <= radiusKm) within += 1;
  }
  return within;
}

/** The baseline's haversine is `distanceKm`'s: same count within the radius for a few points. */
function checkBaselineFormula(responders: readonly Candidate[], points: readonly Point[], radiusKm: number): void {
  for (const point of points.slice(0, 20)) {
    const expected = responders.filter((r) => distanceKm(point, r) <= radiusKm).length;
    const got = scanDistancesOnly(responders, point, radiusKm);
    if (got !== expected) throw new Error(`dispatch bench: the baseline counted ${got} within ${radiusKm} km, distanceKm ${expected}`);
  }
}

function responderRow(responder: Candidate, at: string): ResponderRow {
  return {
    responder_id: responder.responderId,
    environment: 'live',
    name: `Bench Responder ${responder.responderId.slice(-6)}`,
    phone: '+2348000000000',
    token_hash: createHash('sha256').update(responder.responderId).digest('hex'),
    token_hint: 'rtk_…bench',
    status: 'active',
    available: 1,
    latitude: responder.latitude,
    longitude: responder.longitude,
    location_at: at,
    created_at: at,
    updated_at: at,
  };
}

/** Migrations, then every responder in one transaction of multi-row INSERTs; answers the ms it took. */
async function loadResponders(database: OpenedDatabase, responders: readonly Candidate[]): Promise<number> {
  const started = performance.now();
  await migrateToLatest(database.db);
  const at = new Date().toISOString();
  await database.db.transaction().execute(async (trx) => {
    for (let i = 0; i < responders.length; i += INSERT_CHUNK) {
      await trx
        .insertInto('responders')
        .values(responders.slice(i, i + INSERT_CHUNK).map((r) => responderRow(r, at)))
        .execute();
    }
  });
  // A PostgreSQL database in service has statistics (autovacuum); a fresh one must be told.
  if (database.engine === 'postgres') await sql`ANALYZE responders`.execute(database.db);
  return performance.now() - started;
}

/** The plan the engine picks for the prefilter's own SQL (captured as `availableRespondersNear` builds it), on one line. */
async function prefilterPlan(database: OpenedDatabase, point: Point, radiusKm: number): Promise<string> {
  const db = database.db;
  let captured: CompiledQuery | undefined;
  const capturing = db.withPlugin({
    transformQuery(args) {
      captured ??= db.getExecutor().compileQuery(args.node, args.queryId);
      return args.node;
    },
    transformResult: async (args) => args.result,
  });
  await availableRespondersNear(capturing, 'live', point, radiusKm);
  if (!captured) return 'unknown';
  const prefix = database.engine === 'sqlite' ? 'EXPLAIN QUERY PLAN ' : 'EXPLAIN ';
  const result = await db.executeQuery<Record<string, unknown>>(CompiledQuery.raw(prefix + captured.sql, [...captured.parameters]));
  return result.rows
    .map((row) =>
      String(row.detail ?? row['QUERY PLAN'] ?? JSON.stringify(row))
        .replace(/\s*\(cost=[^)]*\)/, '')
        .replace(/\s+/g, ' ')
        .trim(),
    )
    .join(' / ');
}

interface Method {
  target: string;
  engine: string;
  /** Sync methods are timed without an `await` in between. */
  sync?: (point: Point) => Choice[] | number;
  async?: (point: Point) => Promise<{ choice: Choice[]; candidates: number }>;
  times: number[];
  candidates: number[];
  /** Points whose choice differs from `chooseNearestResponders` over all responders. */
  mismatches: number;
}

const sameChoice = (a: readonly Choice[], b: readonly Choice[]) => a.length === b.length && a.every((c, i) => c.responderId === b[i]!.responderId);

async function nearestChoice(context: SectionContext, engines: Engine[], notes: string[]) {
  const responderCount = intFromEnv('BENCH_DISPATCH_RESPONDERS', 50_000, 1);
  const choiceCount = intFromEnv('BENCH_DISPATCH_CHOICES', 2_000, 1);
  const defaults = loadConfig({});
  const radiusKm = defaults.DISPATCH_RADIUS_KM;
  const offerCount = defaults.DISPATCH_OFFER_COUNT;

  const responders: Candidate[] = pointsOverNigeria(responderCount, seededRandom(RESPONDER_SEED)).map((p, i) => ({
    responderId: `rsp_bench_${String(i).padStart(6, '0')}`,
    ...p,
  }));
  const points = pointsOverNigeria(WARMUP_CHOICES + choiceCount, seededRandom(POINT_SEED));

  checkBaselineFormula(responders, points, radiusKm);

  const methods: Method[] = [
    {
      target: `baseline: distance to each of ${fmt(responderCount)}, count within, no sort`,
      engine: '-',
      sync: (point) => scanDistancesOnly(responders, point, radiusKm),
      times: [],
      candidates: [],
      mismatches: 0,
    },
    {
      target: `chooseNearestResponders over all ${fmt(responderCount)}`,
      engine: '-',
      sync: (point) => chooseNearestResponders(responders, point, radiusKm, offerCount),
      times: [],
      candidates: [],
      mismatches: 0,
    },
  ];
  const opened: { database: BenchDatabase; handle: OpenedDatabase }[] = [];
  try {
    for (const engine of engines) {
      const database = await createEngineDatabase(engine, (line) => {
        context.log(`[dispatch] ${line}`);
        notes.push(line);
      });
      if (!database) continue;
      const handle = openDatabase(database.url);
      opened.push({ database, handle });
      context.log(`[dispatch/${engine}] loading ${fmt(responderCount)} responders`);
      const loadMs = await loadResponders(handle, responders);
      const plan = await prefilterPlan(handle, points[0]!, radiusKm);
      notes.push(`${engine}: ${fmt(responderCount)} responders inserted (with the migrations) in ${fmt(loadMs / 1000, 1)} s; prefilter plan: ${plan}`);
      methods.push({
        target: `SQL box prefilter + chooseNearestResponders`,
        engine,
        async: (point) => prefilterThenChoose(handle, point, radiusKm, offerCount),
        times: [],
        candidates: [],
        mismatches: 0,
      });
    }

    context.log(`[dispatch] ${fmt(choiceCount)} choices (+${WARMUP_CHOICES} warm-up) per method, ${methods.length} methods interleaved`);
    let withinSum = 0;
    for (const [i, point] of points.entries()) {
      const measured = i >= WARMUP_CHOICES;
      let reference: Choice[] | undefined;
      const checks: { method: Method; choice: Choice[] }[] = [];
      for (let k = 0; k < methods.length; k++) {
        const method = methods[(i + k) % methods.length]!;
        let choice: Choice[] | undefined;
        let candidates: number | undefined;
        let elapsed: number;
        if (method.sync) {
          const started = performance.now();
          const out = method.sync(point);
          elapsed = performance.now() - started;
          if (typeof out === 'number') withinSum += out;
          else reference = out;
        } else {
          const started = performance.now();
          const out = await method.async!(point);
          elapsed = performance.now() - started;
          choice = out.choice;
          candidates = out.candidates;
        }
        if (!measured) continue;
        method.times.push(elapsed);
        if (candidates !== undefined) method.candidates.push(candidates);
        if (choice) checks.push({ method, choice });
      }
      for (const check of checks) if (reference && !sameChoice(reference, check.choice)) check.method.mismatches += 1;
    }

    const summaries = methods.map((m) => ({ method: m, time: summarize(m.times), candidates: summarize(m.candidates) }));
    const base = summaries[0]!.time;
    const table: SectionTable = {
      title: `Nearest ${offerCount} within ${radiusKm} km among ${fmt(responderCount)} responders, per choice (${fmt(choiceCount)} points)`,
      header: ['target', 'engine', 'p50 µs', 'p99 µs', 'mean µs', 'choices/s', 'x baseline p50', 'candidates p50 (p99)'],
      rows: summaries.map(({ method, time, candidates }, index) => [
        method.target,
        method.engine,
        us(time.p50),
        us(time.p99),
        us(time.mean),
        fmt(time.mean > 0 ? 1000 / time.mean : 0),
        index === 0 ? '1.00 (base)' : (time.p50 / base.p50).toFixed(index === 1 ? 2 : 3),
        method.candidates.length ? `${fmt(candidates.p50)} (${fmt(candidates.p99)})` : index === 1 ? fmt(responderCount) : '-',
      ]),
    };
    const all = summaries[1]!.time;
    notes.push(
      `Over all ${fmt(responderCount)}, chooseNearestResponders costs ${(all.p50 / base.p50).toFixed(2)}x the distance-only scan ` +
        `(p50): the haversines are the whole cost, the short list within ${radiusKm} km and its sort are lost in the noise. ` +
        summaries
          .slice(2)
          .map(({ method, time }) => `${method.engine} prefilter + choice: ${(all.p50 / time.p50).toFixed(1)}x faster than the choice over all (p50)`)
          .join('; ') +
        (summaries.length > 2 ? '.' : ''),
    );
    for (const { method } of summaries) {
      if (method.async) {
        notes.push(
          method.mismatches
            ? `${method.engine}: the prefiltered choice differed from the choice over all responders at ${method.mismatches} points`
            : `${method.engine}: the prefiltered choice equalled the choice over all ${fmt(responderCount)} at every point`,
        );
      }
    }
    notes.push(
      `Points and responders uniform in latitude/longitude over Nigeria's box, all active and available (the most rows the ` +
        `prefilter can return); on average ${fmt(withinSum / points.length, 1)} responders lie within ${radiusKm} km of a point. ` +
        `The database path runs in this process against the database as the server opens it (openDatabase), timed ` +
        `around availableRespondersNear + the row mapping + chooseNearestResponders; offerRound's other queries are not in it.`,
    );
    return {
      table,
      data: {
        responders: responderCount,
        choices: choiceCount,
        radiusKm,
        count: offerCount,
        methods: summaries.map(({ method, time, candidates }) => ({
          target: method.target,
          engine: method.engine,
          timeMs: time,
          candidates: method.candidates.length ? candidates : undefined,
          mismatches: method.async ? method.mismatches : undefined,
        })),
      },
    };
  } finally {
    for (const { database, handle } of opened) {
      await handle.close().catch(() => undefined);
      await database.drop().catch((err: unknown) => context.log(`[dispatch/${database.engine}] could not drop the database: ${String(err)}`));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Part 2: sandbox, create → assigned
// ---------------------------------------------------------------------------------------------

interface IncidentAnswer {
  incident: { incident_id: string; status: string; created_at: string; responder: { assigned_at: string } | null };
}

async function call(url: string, key: string, init: { method?: string; body?: unknown } = {}): Promise<IncidentAnswer> {
  const response = await fetch(url, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${key}`, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  if (response.status !== 200 && response.status !== 201) {
    throw new Error(`${init.method ?? 'GET'} ${url}: ${response.status}: ${text.slice(0, 300)}`);
  }
  return JSON.parse(text) as IncidentAnswer;
}

interface SandboxRun {
  /** Client side: POST sent → the first GET answer showing `assigned` or later (ms). */
  createToAssigned: number[];
  /** Server side: the incident's created_at → responder.assigned_at (ms, server clock). */
  serverToAssigned: number[];
  postMs: number[];
  /** Incidents first seen already past `assigned` (the poll missed the assigned state). */
  seenPastAssigned: number;
  /** Incidents never seen assigned within the bound. */
  missing: number;
}

/** `count` sandbox incidents one at a time, each after a random pause of up to one sweep interval. */
async function createAndWatch(
  server: BenchChild<ServeReady>,
  count: number,
  warmup: number,
  boundMs: number,
  pollMs: number,
  points: readonly Point[],
  random: () => number,
): Promise<SandboxRun> {
  const { baseUrl, sandboxKey } = server.ready;
  const run: SandboxRun = { createToAssigned: [], serverToAssigned: [], postMs: [], seenPastAssigned: 0, missing: 0 };
  for (let i = 0; i < warmup + count; i++) {
    await sleep(random() * SWEEP_INTERVAL_MS);
    const point = points[i % points.length]!;
    const body = { ...INCIDENT_BODY, location: { coordinates: [point.longitude, point.latitude], address: 'Bench dispatch point' } };
    const sentAt = performance.now();
    const created = await call(`${baseUrl}/incidents`, sandboxKey, { method: 'POST', body });
    const postMs = performance.now() - sentAt;
    const id = created.incident.incident_id;
    let seen: { at: number; answer: IncidentAnswer } | undefined;
    while (performance.now() - sentAt < boundMs) {
      const polledAt = performance.now();
      const answer = await call(`${baseUrl}/incidents/${id}`, sandboxKey);
      if (ASSIGNED_OR_LATER.has(answer.incident.status)) {
        seen = { at: performance.now(), answer };
        break;
      }
      await sleep(Math.max(0, pollMs - (performance.now() - polledAt)));
    }
    if (i < warmup) continue;
    run.postMs.push(postMs);
    if (!seen) {
      run.missing += 1;
      continue;
    }
    run.createToAssigned.push(seen.at - sentAt);
    if (seen.answer.incident.status !== 'assigned') run.seenPastAssigned += 1;
    const assignedAt = seen.answer.incident.responder?.assigned_at;
    if (assignedAt) run.serverToAssigned.push(Date.parse(assignedAt) - Date.parse(seen.answer.incident.created_at));
  }
  return run;
}

/** One server at `speed` on a fresh database of `engine`; undefined when the engine is unavailable. */
async function sandboxBlock(
  engine: Engine,
  speed: number,
  count: number,
  warmup: number,
  pollMs: number,
  notes: string[],
  context: SectionContext,
): Promise<SandboxRun | undefined> {
  const database = await createEngineDatabase(engine, (line) => {
      context.log(`[dispatch] ${line}`);
      notes.push(line);
    }, 'sandbox');
  if (!database) return undefined;
  let server: BenchChild<ServeReady> | undefined;
  try {
    context.log(`[dispatch/${engine}] sandbox at SANDBOX_SPEED ${speed}: ${count} incidents one at a time (+${warmup} warm-up)`);
    server = await startChild<ServeReady>(`tsaro server (${engine}, sandbox speed ${speed})`, {
      script: 'bench/serve.ts',
      env: { DATABASE_URL: database.url, BENCH_SANDBOX_SPEED: String(speed) },
    });
    const stepMs = (SIMULATED_STEP_SECONDS.assigned * 1000) / speed;
    const boundMs = stepMs + 10 * SWEEP_INTERVAL_MS;
    const points = pointsOverNigeria(warmup + count, seededRandom(POINT_SEED));
    return await createAndWatch(server, count, warmup, boundMs, pollMs, points, seededRandom(PAUSE_SEED));
  } finally {
    await server?.stop();
    await database.drop().catch((err: unknown) => context.log(`[dispatch/${engine}] could not drop the database: ${String(err)}`));
  }
}

/**
 * What the sweep alone predicts: the first step is due `stepMs` after the incident is opened, and
 * is taken at the first sweep at or after that; with creations at random phases of the sweep, the
 * wait for that sweep is uniform over one interval.
 */
function modelMs(speed: number, p: number): number {
  return (SIMULATED_STEP_SECONDS.assigned * 1000) / speed + (p / 100) * SWEEP_INTERVAL_MS;
}

async function sandboxToAssigned(context: SectionContext, engines: Engine[], notes: string[]) {
  const speed = intFromEnv('BENCH_DISPATCH_SPEED', 1000, 1);
  if (speed > 10_000) throw new Error('BENCH_DISPATCH_SPEED: the server accepts SANDBOX_SPEED up to 10000');
  const count = intFromEnv('BENCH_DISPATCH_INCIDENTS', 30, 1);
  const slowCount = intFromEnv('BENCH_DISPATCH_SLOW_INCIDENTS', 3, 0);
  const pollMs = intFromEnv('BENCH_DISPATCH_POLL_MS', 15, 1);

  const runs: { label: string; engine: Engine; speed: number; run: SandboxRun }[] = [];
  for (const engine of engines) {
    const run = await sandboxBlock(engine, speed, count, WARMUP_INCIDENTS, pollMs, notes, context);
    if (run) runs.push({ label: `sandbox, SANDBOX_SPEED ${speed}`, engine, speed, run });
  }

  const slowWorstMs = slowCount * (SIMULATED_STEP_SECONDS.assigned * 1000 + 2 * SWEEP_INTERVAL_MS);
  const slowEngine = runs[0]?.engine;
  if (slowCount === 0) {
    notes.push('SANDBOX_SPEED 1: skipped (BENCH_DISPATCH_SLOW_INCIDENTS=0).');
  } else if (slowWorstMs > SLOW_RUN_BUDGET_MS) {
    notes.push(
      `SANDBOX_SPEED 1: skipped: ${slowCount} incidents one at a time could take ${fmt(slowWorstMs / 1000)} s ` +
        `(> ${SLOW_RUN_BUDGET_MS / 1000} s); expect p50 ≈ ${fmt(modelMs(1, 50))} ms from the model below.`,
    );
  } else if (slowEngine) {
    const run = await sandboxBlock(slowEngine, 1, slowCount, 0, pollMs, notes, context);
    if (run) runs.push({ label: 'sandbox, SANDBOX_SPEED 1', engine: slowEngine, speed: 1, run });
  }

  const table: SectionTable = {
    title: `Sandbox, POST /incidents → GET shows assigned (one at a time, polled every ${pollMs} ms; dispatch sweep every ${SWEEP_INTERVAL_MS / 1000} s)`,
    header: ['target', 'engine', 'incidents', 'p50 ms', 'p99 ms', 'mean ms', 'max ms', 'server p50 ms', 'server p99 ms', 'model p50 / p99 ms', 'POST p50 ms'],
    rows: runs.map(({ label, engine, speed: s, run }) => {
      const client = summarize(run.createToAssigned);
      const server = summarize(run.serverToAssigned);
      return [
        label,
        engine,
        `${client.count}${run.missing ? ` (+${run.missing} never)` : ''}`,
        fmt(client.p50),
        fmt(client.p99),
        fmt(client.mean),
        fmt(client.max),
        fmt(server.p50),
        fmt(server.p99),
        `${fmt(modelMs(s, 50))} / ${fmt(modelMs(s, 99))}`,
        fmt(summarize(run.postMs).p50, 1),
      ];
    }),
  };
  for (const { label, engine, run } of runs) {
    if (run.missing) notes.push(`${label} (${engine}): ${run.missing} incidents never showed assigned within the bound`);
    if (run.seenPastAssigned) notes.push(`${label} (${engine}): ${run.seenPastAssigned} incidents were first seen past assigned (the poll missed it)`);
  }
  notes.push(
    `create → assigned is set by the dispatch sweep, not by the work: a sandbox incident's first simulated step is due ` +
      `${SIMULATED_STEP_SECONDS.assigned} s / SANDBOX_SPEED after it is opened (${fmt(modelMs(speed, 0), 0)} ms at ${speed}), but ` +
      `only the sweep (setInterval every ${SWEEP_INTERVAL_MS} ms in server/server.ts) takes it, so the wait is the step plus the ` +
      `time to the next tick, uniform over 0–${SWEEP_INTERVAL_MS} ms: the "model" column. Above SANDBOX_SPEED ~5 (step < sweep) ` +
      `a faster network no longer helps; at speed 1 the 5 s step dominates.`,
    `Each incident is created after a random pause of 0–${SWEEP_INTERVAL_MS} ms (seeded): created right after the previous one ` +
      `was seen assigned (just after a tick), every incident would wait almost a full interval. "server" columns are the ` +
      `incident's own created_at → responder.assigned_at (server clock, ms); the client columns add the POST, the poll ` +
      `interval and one GET. The sandbox database holds no responders: sandbox incidents go to the simulated network.`,
  );
  return {
    table,
    data: {
      speed,
      pollMs,
      runs: runs.map(({ label, engine, speed: s, run }) => ({
        label,
        engine,
        speed: s,
        createToAssignedMs: summarize(run.createToAssigned),
        serverToAssignedMs: summarize(run.serverToAssigned),
        postMs: summarize(run.postMs),
        missing: run.missing,
        seenPastAssigned: run.seenPastAssigned,
        raw: { createToAssignedMs: run.createToAssigned.map((v) => Math.round(v * 10) / 10), serverToAssignedMs: run.serverToAssigned },
      })),
    },
  };
}

export const dispatchSection: BenchSection = {
  name: 'dispatch',
  description:
    'nearest available responders among 50,000 over Nigeria (pure function vs SQL prefilter, per choice, vs a distance-only scan), ' +
    'and sandbox create → assigned at full speed',
  async run(context) {
    const engines = enginesWanted();
    const notes: string[] = [];
    const nearest = await nearestChoice(context, engines, notes);
    const sandbox = await sandboxToAssigned(context, engines, notes);
    return {
      name: 'dispatch',
      rows: [],
      aims: [],
      notes,
      tables: [nearest.table, sandbox.table],
      data: { nearest: nearest.data, sandbox: sandbox.data },
    };
  },
};
