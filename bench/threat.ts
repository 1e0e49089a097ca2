/**
 * Section `threat`: the threat intelligence engine (issue #6) over BENCH_THREAT_EVENTS (default
 * 1,000,000) synthetic events plus the shipped UCDP GED extract.
 *
 *   Synthetic events (seeded mulberry32, the same every run for the same day): 3,000 "places" on
 *   covered land (`isCovered`; a quarter of them inside Nigeria's box, the product's first
 *   market, the rest over Sub-Saharan Africa), each with a heavy-tailed weight (Pareto, alpha 1.1)
 *   and a scatter of 1–15 km; every event picks a place by weight and lies around it (normal,
 *   that sigma), dated uniformly over the 15 years before today, a type from the taxonomy, deaths
 *   heavy-tailed (half none) → `severityFromDeaths`, precision mostly 1–2, source 90 % public,
 *   8 % community (weight 0.5 × confidence), 2 % verified. The shipped rows are read from
 *   threat-data/ucdp with csv-parse + `ucdpRow`, as the importer does.
 *
 *   1. In this process: `ThreatIndex.build` over all rows (time of each of 3 builds; heap +
 *      arrayBuffers retained by the first, after a forced GC); then BENCH_THREAT_POINTS (10,000)
 *      covered points (half near places, half uniform over covered land; after 500 discarded),
 *      each timed, in rotating order, with: the bare index query (forEachWithin 50 km, count
 *      only), `assessArea(index, lat, lng, 2, now)` and the `safetyScore` service function (what
 *      GET /safety/score calls: coverage check + assessArea + the answer); BENCH_THREAT_ROUTES
 *      (1,000) 20-checkpoint routes of 20–800 km through `routeSafety`; BENCH_THREAT_HEATMAPS (50)
 *      one-year heatmaps of Nigeria (bounds 4,2.6,14,14.7) through `heatmapData`; the danger
 *      zones (`computeDangerZones`) once.
 *   2. Side by side with PostGIS: a fresh PostgreSQL database, `CREATE EXTENSION postgis`, table
 *      ev(id int, geog geography(Point,4326)) holding the same points (INSERT … unnest of arrays,
 *      50,000 a statement), a GiST index, ANALYZE. For BENCH_THREAT_PG_POINTS (2,000) of the
 *      points above (after 200 discarded), in alternating order: `count(*) … ST_DWithin(geog,
 *      point, 2000, false)` (sphere, a prepared statement on one connection, timed at the client
 *      round trip included) against the index's count (forEachWithin 2 km). Equal counts are
 *      checked point by point. Then the same at 50 km (the model's area term) on
 *      BENCH_THREAT_PG_POINTS_50 (500) points. The server-side execution time alone (EXPLAIN
 *      ANALYZE) is given for 200 points per radius. Skipped, with a note, when PostgreSQL or the
 *      postgis extension is missing.
 *   3. HTTP: a SQLite file with the same events (migrations, the shipped extract through
 *      `loadShippedThreatData`, the synthetic rows through one prepared better-sqlite3 statement
 *      in one transaction), a Tsaro child (bench/serve.ts) that loads them into its index at
 *      start, and the bare Express server; GET /v1/external/safety/score with the live key under
 *      autocannon (BENCH_CONNECTIONS), at one fixed busy point (Maiduguri) and rotating over 100
 *      of the points above; req/s as a ratio to the bare server's.
 *
 * Environment: BENCH_THREAT_EVENTS, BENCH_THREAT_POINTS, BENCH_THREAT_ROUTES, BENCH_THREAT_HEATMAPS,
 * BENCH_THREAT_PG_POINTS, BENCH_THREAT_PG_POINTS_50 (0 skips the 50 km comparison),
 * BENCH_THREAT_HTTP (`0` skips part 3), BENCH_POSTGRES_ADMIN_URL, BENCH_LOG_LEVEL / BENCH_LOG_DEST (see serve.ts).
 */
import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { iso1A2Code } from '@rapideditor/country-coder';
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import { parse } from 'csv-parse/sync';
import pg from 'pg';
import { migrateToLatest, openDatabase } from '../server/db/database.ts';
import { isCovered } from '../server/threat/coverage.ts';
import type { ThreatEngine } from '../server/threat/engine.ts';
import { EARTH_RADIUS_KM, greatCircleKm } from '../server/geo.ts';
import { dayNumber, dayText, ThreatIndex } from '../server/threat/event-index.ts';
import { ucdpRow } from '../server/threat/importers/ucdp.ts';
import { AREA_RADIUS_KM, assessArea } from '../server/threat/model.ts';
import { heatmapData, routeSafety, safetyScore, type ThreatDeps } from '../server/threat/service.ts';
import { loadShippedThreatData, SHIPPED_UCDP_FILES } from '../server/threat/shipped-data.ts';
import type { IndexedEventRow } from '../server/threat/store.ts';
import { severityFromDeaths, SOURCE_WEIGHT, type ThreatType } from '../server/threat/taxonomy.ts';
import { computeDangerZones } from '../server/threat/zones.ts';
import { startChild, type BenchChild } from './lib/children.ts';
import { createEngineDatabase, createSqliteDatabase } from './lib/databases.ts';
import { measure, type LoadMeasurement, type LoadSettings } from './lib/load.ts';
import { intFromEnv } from './lib/settings.ts';
import { fmt, seededRandom, summarize, type Summary } from './lib/stats.ts';
import type { AimCheck, BenchSection, ResultRow, SectionContext, SectionTable } from './lib/section.ts';

/** The aims. */
const AIMS = { scoreP99Ms: 1, postgisRatio: 10 } as const;

const PLACE_SEED = 0x7e_0001;
const EVENT_SEED = 0x7e_0002;
const POINT_SEED = 0x7e_0003;
const ROUTE_SEED = 0x7e_0004;
const PLACE_COUNT = 3_000;
/** Share of the places drawn inside Nigeria's box. */
const NIGERIA_PLACE_SHARE = 0.25;
const YEARS = 15;
const WARMUP_POINTS = 500;
const WARMUP_ROUTES = 50;
const WARMUP_HEATMAPS = 3;
const WARMUP_PG_POINTS = 200;
const EXPLAIN_POINTS = 200;
const BUILDS = 3;
const PG_BATCH = 50_000;
const SCORE_RADIUS_KM = 2;
const ROUTE_CHECKPOINTS = 20;
const ROTATING_URLS = 100;
/** The box that holds Sub-Saharan Africa and Sudan (points outside coverage are redrawn). */
const AFRICA_BOX = { minLat: -35, maxLat: 22, minLng: -18, maxLng: 52 } as const;
const NIGERIA_BOX = { minLat: 4.3, maxLat: 13.9, minLng: 2.7, maxLng: 14.6 } as const;
/** The heatmap: a year of Nigeria (the API's example bounds). */
const NIGERIA_BOUNDS = { minLat: 4, minLng: 2.6, maxLat: 14, maxLng: 14.7 } as const;
const MAIDUGURI = { latitude: 11.8311, longitude: 13.151 } as const;
/** PostGIS's sphere for geography with use_spheroid false (m); the server's is EARTH_RADIUS_KM (server/geo.ts). */
const POSTGIS_SPHERE_M = 6371008.8;

// Synthetic type mix: conflict data leads, crime and roads follow.
const TYPE_SHARES: [ThreatType, number][] = [
  ['armed_conflict', 0.25],
  ['communal_violence', 0.1],
  ['violence_against_civilians', 0.2],
  ['kidnapping', 0.1],
  ['armed_robbery', 0.1],
  ['protest_or_riot', 0.1],
  ['crime', 0.08],
  ['road_incident', 0.05],
  ['other', 0.02],
];

interface ServeReady {
  baseUrl: string;
  liveKey: string;
}

interface HelloReady {
  url: string;
}

interface LatLng {
  latitude: number;
  longitude: number;
}

interface Place extends LatLng {
  weight: number;
  sigmaKm: number;
  name: string;
  country: string | null;
}

/** Standard normal (Box–Muller). */
function gaussian(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

/** Milliseconds with a precision that suits their size. */
const ms = (value: number) => fmt(value, value < 1 ? 3 : value < 100 ? 1 : 0);
const mb = (bytes: number) => fmt(bytes / 1_048_576, 1);

// ---------------------------------------------------------------------------------------------
// The data
// ---------------------------------------------------------------------------------------------

function coveredPointIn(box: { minLat: number; maxLat: number; minLng: number; maxLng: number }, random: () => number): LatLng {
  for (;;) {
    const latitude = box.minLat + random() * (box.maxLat - box.minLat);
    const longitude = box.minLng + random() * (box.maxLng - box.minLng);
    if (isCovered(latitude, longitude)) return { latitude, longitude };
  }
}

function makePlaces(random: () => number): Place[] {
  return Array.from({ length: PLACE_COUNT }, (_, i) => {
    const point = coveredPointIn(random() < NIGERIA_PLACE_SHARE ? NIGERIA_BOX : AFRICA_BOX, random);
    return {
      ...point,
      // Pareto, alpha 1.1: most places see a few events, a few see very many.
      weight: Math.min(2_000, (1 - random()) ** (-1 / 1.1)),
      sigmaKm: 1 + random() * 14,
      name: `Synthetic place ${String(i).padStart(4, '0')}`,
      country: iso1A2Code([point.longitude, point.latitude]),
    };
  });
}

/** Picks a place by weight (binary search over the cumulative weights). */
function placePicker(places: readonly Place[]): (u: number) => Place {
  const cumulative = new Float64Array(places.length);
  let sum = 0;
  places.forEach((place, i) => (cumulative[i] = sum += place.weight));
  return (u) => {
    const target = u * sum;
    let lo = 0;
    let hi = places.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < target) lo = mid + 1;
      else hi = mid;
    }
    return places[lo]!;
  };
}

/** A point around `center`, normal in each direction with `sigmaKm`. */
function scatter(center: LatLng, sigmaKm: number, random: () => number): LatLng {
  const latitude = center.latitude + (gaussian(random) * sigmaKm) / 110.574;
  const longitude = center.longitude + (gaussian(random) * sigmaKm) / (111.32 * Math.cos((center.latitude * Math.PI) / 180));
  return { latitude, longitude };
}

function pickType(u: number): ThreatType {
  let acc = 0;
  for (const [type, share] of TYPE_SHARES) {
    acc += share;
    if (u < acc) return type;
  }
  return 'other';
}

function syntheticEvents(count: number, places: readonly Place[], today: number): IndexedEventRow[] {
  const random = seededRandom(EVENT_SEED);
  const pick = placePicker(places);
  const rows: IndexedEventRow[] = new Array<IndexedEventRow>(count);
  for (let i = 0; i < count; i++) {
    const place = pick(random());
    const point = scatter(place, place.sigmaKm, random);
    const type = pickType(random());
    const deaths = random() < 0.5 ? 0 : Math.min(2_000, Math.floor((1 - random()) ** -1));
    const sourceDraw = random();
    const source = sourceDraw < 0.9 ? 'public' : sourceDraw < 0.98 ? 'community' : 'verified';
    const precisionDraw = random();
    rows[i] = {
      event_id: `synthetic:${String(i).padStart(7, '0')}`,
      source,
      dataset: 'synthetic',
      occurred_on: dayText(today - 1 - Math.floor(random() * YEARS * 365)),
      latitude: point.latitude,
      longitude: point.longitude,
      precision: precisionDraw < 0.6 ? 1 : precisionDraw < 0.9 ? 2 : precisionDraw < 0.97 ? 3 : 4,
      type,
      severity: severityFromDeaths(deaths, type),
      fatalities: deaths,
      weight: source === 'community' ? SOURCE_WEIGHT.community * (0.3 + 0.7 * random()) : SOURCE_WEIGHT.public,
      admin1: null,
      admin2: null,
      place: place.name,
      country: place.country,
    };
  }
  return rows;
}

/** The shipped extract as the importer reads it, each event id once (as the database keeps it). */
function shippedEvents(): IndexedEventRow[] {
  const importedAt = new Date().toISOString();
  const byId = new Map<string, IndexedEventRow>();
  for (const file of SHIPPED_UCDP_FILES) {
    const records = parse(readFileSync(file, 'utf8'), { columns: true, skip_empty_lines: true, bom: true, relax_column_count: true, trim: true }) as Record<string, string>[];
    for (const record of records) {
      const event = ucdpRow(record, importedAt);
      if (!event || byId.has(event.event_id)) continue;
      const { description: _description, imported_at: _importedAt, ...indexed } = event;
      byId.set(event.event_id, indexed);
    }
  }
  return [...byId.values()];
}

/** Query points: even ones near a place (by weight, within its scatter), odd ones uniform over covered land. */
function queryPoints(count: number, places: readonly Place[]): LatLng[] {
  const random = seededRandom(POINT_SEED);
  const pick = placePicker(places);
  return Array.from({ length: count }, (_, i) => {
    if (i % 2) return coveredPointIn(AFRICA_BOX, random);
    for (;;) {
      const place = pick(random());
      const point = scatter(place, place.sigmaKm, random);
      if (isCovered(point.latitude, point.longitude)) return point;
    }
  });
}

/** The point `km` from `from` on `bearing` (radians), on a sphere. */
function destination(from: LatLng, km: number, bearing: number): LatLng {
  const rad = Math.PI / 180;
  const δ = km / EARTH_RADIUS_KM;
  const φ1 = from.latitude * rad;
  const λ1 = from.longitude * rad;
  const φ2 = Math.asin(Math.sin(φ1) * Math.cos(δ) + Math.cos(φ1) * Math.sin(δ) * Math.cos(bearing));
  const λ2 = λ1 + Math.atan2(Math.sin(bearing) * Math.sin(δ) * Math.cos(φ1), Math.cos(δ) - Math.sin(φ1) * Math.sin(φ2));
  return { latitude: φ2 / rad, longitude: ((λ2 / rad + 540) % 360) - 180 };
}

/** Routes of 20–800 km from the query points, both ends covered. */
function routes(count: number, starts: readonly LatLng[]): { from: LatLng; to: LatLng; km: number }[] {
  const random = seededRandom(ROUTE_SEED);
  const out: { from: LatLng; to: LatLng; km: number }[] = [];
  for (let i = 0; out.length < count; i++) {
    const from = starts[i % starts.length]!;
    const km = 20 + random() * 780;
    const to = destination(from, km, random() * 2 * Math.PI);
    if (isCovered(to.latitude, to.longitude)) out.push({ from, to, km });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Part 1: in this process
// ---------------------------------------------------------------------------------------------

/** A way to force a full GC: global.gc when node runs with --expose-gc, else the flag set at run time. */
function findGc(): { gc?: () => void; how: string } {
  const global = (globalThis as { gc?: () => void }).gc;
  if (typeof global === 'function') return { gc: global, how: 'global.gc' };
  try {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as unknown;
    if (typeof gc === 'function') return { gc: gc as () => void, how: '--expose-gc set at run time (v8.setFlagsFromString)' };
  } catch {
    // fall through
  }
  return { how: 'no GC could be forced: the memory figure includes garbage' };
}

function retained(): number {
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}

interface Timed {
  target: string;
  times: number[];
  work: number[];
}

const row = (timed: Timed, workLabel: (work: Summary) => string): string[] => {
  const time = summarize(timed.times);
  return [timed.target, fmt(time.count), ms(time.p50), ms(time.p99), ms(time.mean), ms(time.max), timed.work.length ? workLabel(summarize(timed.work)) : ''];
};

async function inProcess(context: SectionContext, rows: readonly IndexedEventRow[], points: readonly LatLng[], now: Date, notes: string[]) {
  const routeCount = intFromEnv('BENCH_THREAT_ROUTES', 1_000, 1);
  const heatmapCount = intFromEnv('BENCH_THREAT_HEATMAPS', 50, 1);
  const { gc, how } = findGc();

  // Build: the first one measured for memory too (the rows stay alive throughout).
  context.log(`[threat] building the index over ${fmt(rows.length)} events, ${BUILDS} times`);
  const build: Timed = { target: `ThreatIndex.build (${fmt(rows.length)} rows)`, times: [], work: [] };
  let index: ThreatIndex | undefined;
  let retainedBytes = 0;
  for (let b = 0; b < BUILDS; b++) {
    index = undefined;
    gc?.();
    const before = retained();
    const started = performance.now();
    const built = ThreatIndex.build(rows, 1);
    build.times.push(performance.now() - started);
    gc?.();
    if (b === 0) retainedBytes = retained() - before;
    index = built;
  }
  const idx = index!;
  const engine: ThreatEngine = { current: () => idx, refresh: async () => false, dangerZones: (at) => computeDangerZones(idx, at) };
  const deps: ThreatDeps = { threat: engine, clock: { now: () => now } };

  // Scores: three methods per point, rotating order.
  context.log(`[threat] ${fmt(points.length - WARMUP_POINTS)} points (+${WARMUP_POINTS} warm-up), 3 methods interleaved`);
  let sink = 0;
  const methods: (Timed & { run: (p: LatLng) => number })[] = [
    {
      target: `index only: forEachWithin ${AREA_RADIUS_KM} km, count`,
      times: [],
      work: [],
      run: (p) => {
        let n = 0;
        idx.forEachWithin(p.latitude, p.longitude, AREA_RADIUS_KM, () => n++);
        return n;
      },
    },
    { target: `assessArea, radius ${SCORE_RADIUS_KM} km`, times: [], work: [], run: (p) => assessArea(idx, p.latitude, p.longitude, SCORE_RADIUS_KM, now).score },
    {
      target: 'safetyScore (service: coverage + assessArea + answer)',
      times: [],
      work: [],
      run: (p) => safetyScore(deps, { latitude: p.latitude, longitude: p.longitude, radius_km: SCORE_RADIUS_KM }).score,
    },
  ];
  for (const [i, point] of points.entries()) {
    for (let k = 0; k < methods.length; k++) {
      const method = methods[(i + k) % methods.length]!;
      const started = performance.now();
      const out = method.run(point);
      const elapsed = performance.now() - started;
      if (i < WARMUP_POINTS) continue;
      method.times.push(elapsed);
      sink += out;
      if (method === methods[0]) method.work.push(out);
    }
  }
  const visited = methods[0]!.work;

  // Routes.
  context.log(`[threat] ${fmt(routeCount)} routes of ${ROUTE_CHECKPOINTS} checkpoints (+${WARMUP_ROUTES} warm-up)`);
  const routeTimed: Timed = { target: `routeSafety, ${ROUTE_CHECKPOINTS} checkpoints, 20–800 km`, times: [], work: [] };
  for (const [i, route] of routes(WARMUP_ROUTES + routeCount, points.slice(WARMUP_POINTS)).entries()) {
    const query = { from_lat: route.from.latitude, from_lng: route.from.longitude, to_lat: route.to.latitude, to_lng: route.to.longitude, checkpoints: ROUTE_CHECKPOINTS };
    const started = performance.now();
    const answer = routeSafety(deps, query);
    const elapsed = performance.now() - started;
    sink += answer.route_safety_score;
    if (i < WARMUP_ROUTES) continue;
    routeTimed.times.push(elapsed);
    routeTimed.work.push(route.km);
  }

  // Heatmaps.
  context.log(`[threat] ${heatmapCount} one-year heatmaps of Nigeria (+${WARMUP_HEATMAPS} warm-up)`);
  const heat: Timed = { target: 'heatmapData, Nigeria (4,2.6,14,14.7), 365 days', times: [], work: [] };
  let heatPoints = 0;
  for (let i = 0; i < WARMUP_HEATMAPS + heatmapCount; i++) {
    const started = performance.now();
    const answer = heatmapData(deps, { bounds: { ...NIGERIA_BOUNDS }, days: 365 });
    const elapsed = performance.now() - started;
    heatPoints = answer.count;
    if (i < WARMUP_HEATMAPS) continue;
    heat.times.push(elapsed);
    heat.work.push(answer.incident_count);
  }
  const { minLat, minLng, maxLat, maxLng } = NIGERIA_BOUNDS;
  const inNigeriaBox = rows.filter((r) => r.latitude >= minLat && r.latitude <= maxLat && r.longitude >= minLng && r.longitude <= maxLng).length;

  // Danger zones, once.
  context.log('[threat] danger zones (once)');
  const zonesStarted = performance.now();
  const zones = await computeDangerZones(idx, now, async () => undefined); // no pauses: the compute time alone
  const zonesTimed: Timed = { target: 'computeDangerZones (once)', times: [performance.now() - zonesStarted], work: [zones.length] };

  const table: SectionTable = {
    title: `In-process over ${fmt(rows.length)} events, ms per call (score methods interleaved per point)`,
    header: ['target', 'calls', 'p50 ms', 'p99 ms', 'mean ms', 'max ms', 'work'],
    rows: [
      row(build, () => ''),
      ...methods.map((m, i) => row(m, (w) => (i === 0 ? `events within ${AREA_RADIUS_KM} km p50 ${fmt(w.p50)}, p99 ${fmt(w.p99)}, max ${fmt(w.max)}` : ''))),
      row(routeTimed, (w) => `route km p50 ${fmt(w.p50)}`),
      row(heat, (w) => `${fmt(w.p50)} events of the last year, ${fmt(heatPoints)} cells`),
      row(zonesTimed, (w) => `${fmt(w.p50)} zones`),
    ],
  };
  table.rows[0]![6] = `retains ${mb(retainedBytes)} MB heap + arrayBuffers (${fmt(retainedBytes / rows.length)} B/event)`;

  notes.push(
    `Index memory: heap + arrayBuffers after the first build minus before it, each after a full GC (${how}); the rows themselves ` +
      `(JS objects, already alive) are not in it, nor are the place names the index shares with them. Builds: ${build.times.map((t) => fmt(t)).join(', ')} ms.`,
    `Every score reads all events within ${AREA_RADIUS_KM} km (the model's area term), whatever the asked radius: its cost follows ` +
      `that count (p99 point: ${fmt(summarize(visited).p99)} events). ${fmt(inNigeriaBox)} events lie in the heatmap's Nigeria box ` +
      `(all years); the heatmap scans them all and keeps the last 365 days.`,
  );
  return {
    index: idx,
    deps,
    table,
    sink,
    scores: { index: summarize(methods[0]!.times), assessArea: summarize(methods[1]!.times), service: summarize(methods[2]!.times) },
    data: {
      buildMs: build.times,
      retainedBytes,
      gc: how,
      visitedWithin50Km: summarize(visited),
      methods: [...methods, routeTimed, heat, zonesTimed].map((m) => ({ target: m.target, timeMs: summarize(m.times), work: m.work.length ? summarize(m.work) : undefined })),
      zones: zones.length,
      heatmapCells: heatPoints,
      eventsInNigeriaBox: inNigeriaBox,
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Part 2: PostGIS side by side
// ---------------------------------------------------------------------------------------------

/** An event counted on one side only, with both distances (m) and its bearing from the point (degrees). */
interface OneSided {
  id: number;
  indexM: number;
  postgisM: number;
  bearing: number;
}

interface Mismatch {
  point: LatLng;
  postgis: number;
  index: number;
  /** In PostGIS's answer only: with `indexM` <= the radius, the index's own distance says it should have been found. */
  postgisOnly: OneSided[];
  indexOnly: OneSided[];
}

interface RadiusComparison {
  radiusKm: number;
  points: number;
  equal: number;
  counts: Summary;
  postgis: Summary;
  postgisExecution: Summary;
  index: Summary;
  mismatches: Mismatch[];
}

const WITHIN_SQL = 'ST_DWithin(geog, ST_SetSRID(ST_MakePoint($1, $2), 4326)::geography, $3, false)';
const POINT_SQL = 'ST_SetSRID(ST_MakePoint($1, $2), 4326)::geography';

function bearingDeg(from: LatLng, lat: number, lng: number): number {
  const rad = Math.PI / 180;
  const φ1 = from.latitude * rad;
  const φ2 = lat * rad;
  const Δλ = (lng - from.longitude) * rad;
  const θ = Math.atan2(Math.sin(Δλ) * Math.cos(φ2), Math.cos(φ1) * Math.sin(φ2) - Math.sin(φ1) * Math.cos(φ2) * Math.cos(Δλ));
  return ((θ / rad) + 360) % 360;
}

/** Which events one side counted and the other did not, with both distances. */
async function explainMismatch(client: pg.Client, index: ThreatIndex, point: LatLng, radiusKm: number, postgis: number, ours: number): Promise<Mismatch> {
  const meters = radiusKm * 1000;
  const theirs = await client.query<{ id: number; m: number }>(`SELECT id, ST_Distance(geog, ${POINT_SQL}, false) AS m FROM ev WHERE ${WITHIN_SQL}`, [point.longitude, point.latitude, meters]);
  const theirIds = new Map(theirs.rows.map((r) => [r.id, r.m]));
  const ourIds = new Set<number>();
  index.forEachWithin(point.latitude, point.longitude, radiusKm, (id) => ourIds.add(id));
  const { latitude, longitude } = index.columns;
  const describe = (id: number, postgisM: number): OneSided => ({
    id,
    indexM: greatCircleKm(point.latitude, point.longitude, latitude[id]!, longitude[id]!) * 1000,
    postgisM,
    bearing: bearingDeg(point, latitude[id]!, longitude[id]!),
  });
  const postgisOnly = [...theirIds].filter(([id]) => !ourIds.has(id)).map(([id, m]) => describe(id, m));
  const onlyOurs = [...ourIds].filter((id) => !theirIds.has(id));
  const theirDistances = onlyOurs.length
    ? await client.query<{ id: number; m: number }>(
        `SELECT id, ST_Distance(geog, ${POINT_SQL}, false) AS m FROM ev WHERE ST_DWithin(geog, ${POINT_SQL}, $3 + 10, false) AND id = ANY($4::int[])`,
        [point.longitude, point.latitude, meters, onlyOurs],
      )
    : { rows: [] };
  const theirM = new Map(theirDistances.rows.map((r) => [r.id, r.m]));
  return { point, postgis, index: ours, postgisOnly, indexOnly: onlyOurs.map((id) => describe(id, theirM.get(id) ?? Number.NaN)) };
}

async function compareRadius(client: pg.Client, index: ThreatIndex, points: readonly LatLng[], radiusKm: number): Promise<RadiusComparison> {
  const meters = radiusKm * 1000;
  const text = `SELECT count(*)::int AS n FROM ev WHERE ${WITHIN_SQL}`;
  const name = `ev_within_${radiusKm}`;
  const countIndex = (p: LatLng) => {
    let n = 0;
    index.forEachWithin(p.latitude, p.longitude, radiusKm, () => n++);
    return n;
  };
  const postgisTimes: number[] = [];
  const indexTimes: number[] = [];
  const counts: number[] = [];
  const differing: { point: LatLng; theirs: number; ours: number }[] = [];
  let equal = 0;
  for (const [i, point] of points.entries()) {
    let theirs = 0;
    let ours = 0;
    let theirMs = 0;
    let ourMs = 0;
    for (let k = 0; k < 2; k++) {
      if ((i + k) % 2 === 0) {
        const started = performance.now();
        const result = await client.query<{ n: number }>({ name, text, values: [point.longitude, point.latitude, meters] });
        theirMs = performance.now() - started;
        theirs = result.rows[0]!.n;
      } else {
        const started = performance.now();
        ours = countIndex(point);
        ourMs = performance.now() - started;
      }
    }
    if (i < WARMUP_PG_POINTS && points.length > WARMUP_PG_POINTS) continue;
    postgisTimes.push(theirMs);
    indexTimes.push(ourMs);
    counts.push(ours);
    if (theirs === ours) equal++;
    else differing.push({ point, theirs, ours });
  }
  const mismatches: Mismatch[] = [];
  for (const d of differing) mismatches.push(await explainMismatch(client, index, d.point, radiusKm, d.theirs, d.ours));
  // Server-side execution alone, for a sample (not interleaved: EXPLAIN ANALYZE adds its own instrumentation).
  const execution: number[] = [];
  for (const point of points.slice(-EXPLAIN_POINTS)) {
    const result = await client.query<{ 'QUERY PLAN': [{ 'Execution Time': number }] }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, [point.longitude, point.latitude, meters]);
    execution.push(result.rows[0]!['QUERY PLAN'][0]['Execution Time']);
  }
  return {
    radiusKm,
    points: postgisTimes.length,
    equal,
    counts: summarize(counts),
    postgis: summarize(postgisTimes),
    postgisExecution: summarize(execution),
    index: summarize(indexTimes),
    mismatches,
  };
}

async function postgisSide(context: SectionContext, rows: readonly IndexedEventRow[], index: ThreatIndex, points: readonly LatLng[], notes: string[]) {
  const pointCount = intFromEnv('BENCH_THREAT_PG_POINTS', 2_000, 1);
  const pointCount50 = intFromEnv('BENCH_THREAT_PG_POINTS_50', 500, 0);
  const database = await createEngineDatabase(
    'postgres',
    (line) => {
      context.log(`[threat] ${line}`);
      notes.push(line);
    },
    'PostGIS comparison',
  );
  if (!database) return undefined;
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    try {
      await client.query('CREATE EXTENSION postgis');
    } catch (err) {
      const line =
        `PostGIS comparison skipped: CREATE EXTENSION postgis failed (${err instanceof Error ? err.message : String(err)}); ` +
        'install it with apt-get install postgresql-15-postgis-3 (Debian 12, PostgreSQL 15).';
      context.log(`[threat] ${line}`);
      notes.push(line);
      return undefined;
    }
    const version = (await client.query<{ v: string }>('SELECT postgis_lib_version() AS v')).rows[0]!.v;
    const server = (await client.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]!.v;
    context.log(`[threat] PostGIS ${version}: loading ${fmt(rows.length)} points`);
    await client.query('CREATE TABLE ev (id int, geog geography(Point, 4326))');
    const loadStarted = performance.now();
    for (let start = 0; start < rows.length; start += PG_BATCH) {
      const batch = rows.slice(start, start + PG_BATCH);
      await client.query(
        'INSERT INTO ev SELECT i, ST_SetSRID(ST_MakePoint(lng, lat), 4326)::geography FROM unnest($1::int[], $2::float8[], $3::float8[]) AS t(i, lng, lat)',
        [batch.map((_, k) => start + k), batch.map((r) => r.longitude), batch.map((r) => r.latitude)],
      );
    }
    const loadMs = performance.now() - loadStarted;
    const indexStarted = performance.now();
    await client.query('CREATE INDEX ev_geog ON ev USING gist (geog)');
    await client.query('ANALYZE ev');
    const indexMs = performance.now() - indexStarted;
    const plan = (await client.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN SELECT count(*) FROM ev WHERE ST_DWithin(geog, ST_SetSRID(ST_MakePoint(${MAIDUGURI.longitude}, ${MAIDUGURI.latitude}), 4326)::geography, 2000, false)`,
    )).rows
      .map((r) => r['QUERY PLAN'].replace(/\s*\(cost=[^)]*\)/, '').replace(/\s+/g, ' ').trim())
      .filter((line) => !line.startsWith('Filter') && !line.startsWith('Index Cond') && !line.startsWith('Recheck'))
      .join(' / ');
    notes.push(
      `PostGIS ${version} on PostgreSQL ${server}: ${fmt(rows.length)} points inserted in ${fmt(loadMs / 1000, 1)} s (unnest, ${fmt(PG_BATCH)} a statement), ` +
        `GiST index + ANALYZE in ${fmt(indexMs / 1000, 1)} s; plan at 2 km: ${plan}.`,
    );

    const comparisons: RadiusComparison[] = [];
    const sample = points.slice(WARMUP_POINTS - WARMUP_PG_POINTS).slice(0, WARMUP_PG_POINTS + pointCount);
    context.log(`[threat] radius ${SCORE_RADIUS_KM} km: ${fmt(pointCount)} points (+${WARMUP_PG_POINTS} warm-up), PostGIS and index alternating`);
    comparisons.push(await compareRadius(client, index, sample, SCORE_RADIUS_KM));
    if (pointCount50 > 0) {
      context.log(`[threat] radius ${AREA_RADIUS_KM} km: ${fmt(pointCount50)} points (+${WARMUP_PG_POINTS} warm-up)`);
      comparisons.push(await compareRadius(client, index, sample.slice(0, WARMUP_PG_POINTS + pointCount50), AREA_RADIUS_KM));
    } else {
      notes.push(`PostGIS at ${AREA_RADIUS_KM} km: skipped (BENCH_THREAT_PG_POINTS_50=0).`);
    }
    const angleGapMm = (km: number) => Math.abs(km * 1e6 * (POSTGIS_SPHERE_M / 1000 / EARTH_RADIUS_KM - 1)).toFixed(1);
    const m = (value: number) => `${value.toFixed(3)} m`;
    for (const c of comparisons) {
      if (c.equal === c.points) continue;
      const postgisOnly = c.mismatches.flatMap((x) => x.postgisOnly);
      const indexOnly = c.mismatches.flatMap((x) => x.indexOnly);
      const missed = postgisOnly.filter((e) => e.indexM <= c.radiusKm * 1000);
      const list = (events: OneSided[]) =>
        events
          .slice(0, 6)
          .map((e) => `#${e.id} index ${m(e.indexM)} / PostGIS ${m(e.postgisM)}, bearing ${e.bearing.toFixed(0)}°`)
          .join('; ');
      notes.push(
        `${c.radiusKm} km: counts differ at ${c.points - c.equal} of ${fmt(c.points)} points: ${postgisOnly.length} events counted by PostGIS only, ` +
          `${indexOnly.length} by the index only. ` +
          (missed.length
            ? `${missed.length} of the PostGIS-only events are within ${c.radiusKm} km by the index's own distance but forEachWithin never ` +
              `visited them (bearings ${[...new Set(missed.map((e) => Math.round(e.bearing)))].slice(0, 12).join(', ')}°): ${list(missed)}. `
            : postgisOnly.length
              ? `PostGIS only: ${list(postgisOnly)}. `
              : '') +
          (indexOnly.length ? `Index only (the sphere difference below): ${list(indexOnly)}.` : ''),
      );
    }
    notes.push(
      `Counts: the index measures on a sphere of ${EARTH_RADIUS_KM} km, PostGIS (use_spheroid false) on ${POSTGIS_SPHERE_M} m: the angles ` +
        `differ by ${angleGapMm(SCORE_RADIUS_KM)} mm at ${SCORE_RADIUS_KM} km (${angleGapMm(AREA_RADIUS_KM)} mm at ${AREA_RADIUS_KM} km), so only floating-point ` +
        `rounding at the very edge can make a count differ. PostGIS times are at the client ` +
        `(prepared statement, one connection, loopback round trip included); "exec" is EXPLAIN ANALYZE's execution time on the server for ` +
        `${EXPLAIN_POINTS} of the points. The "x faster" columns divide PostGIS's client time by the index's.`,
    );
    const table: SectionTable = {
      title: `Radius count, PostGIS ST_DWithin (geography, GiST) vs the index (forEachWithin), same ${fmt(rows.length)} points, ms per query`,
      header: ['radius', 'points', 'equal counts', 'count p50 (p99)', 'PostGIS p50', 'PostGIS p99', 'PostGIS exec p50', 'index p50', 'index p99', 'x faster p50', 'x faster mean'],
      rows: comparisons.map((c) => [
        `${c.radiusKm} km`,
        fmt(c.points),
        `${fmt(c.equal)} of ${fmt(c.points)}`,
        `${fmt(c.counts.p50)} (${fmt(c.counts.p99)})`,
        ms(c.postgis.p50),
        ms(c.postgis.p99),
        ms(c.postgisExecution.p50),
        ms(c.index.p50),
        ms(c.index.p99),
        fmt(c.postgis.p50 / c.index.p50, 1),
        fmt(c.postgis.mean / c.index.mean, 1),
      ]),
      rightAligned: [false, true, true, true, true, true, true, true, true, true, true],
    };
    return { table, comparisons, data: { postgis: version, postgres: server, loadMs, indexMs, comparisons } };
  } finally {
    await client.end().catch(() => undefined);
    await database.drop().catch((err: unknown) => context.log(`[threat] could not drop the database: ${String(err)}`));
  }
}

// ---------------------------------------------------------------------------------------------
// Part 3: HTTP
// ---------------------------------------------------------------------------------------------

/** The same events in a SQLite file: migrations, the shipped extract as the server loads it, then the synthetic rows. */
async function buildSqliteFile(url: string, synthetic: readonly IndexedEventRow[]): Promise<{ shipped: number; ms: number }> {
  const started = performance.now();
  const opened = openDatabase(url);
  let shipped = 0;
  try {
    await migrateToLatest(opened.db);
    shipped = (await loadShippedThreatData(opened.db, { now: () => new Date() })).reduce((sum, load) => sum + load.imported, 0);
  } finally {
    await opened.close();
  }
  const sqlite = new Database(url);
  try {
    const revision = (sqlite.prepare('SELECT revision FROM threat_revision WHERE id = 1').get() as { revision: number }).revision + 1;
    const insert = sqlite.prepare(
      `INSERT INTO threat_events (event_id, source, dataset, occurred_on, latitude, longitude, precision, type, severity, fatalities,
        weight, country, admin1, admin2, place, description, imported_at, revision) VALUES (?, ?, 'bench synthetic', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?)`,
    );
    const importedAt = new Date().toISOString();
    sqlite.transaction(() => {
      for (const r of synthetic) {
        insert.run(r.event_id, r.source, r.occurred_on, r.latitude, r.longitude, r.precision, r.type, r.severity, r.fatalities, r.weight, r.country, r.admin1, r.admin2, r.place, importedAt, revision);
      }
      sqlite.prepare('UPDATE threat_revision SET revision = ? WHERE id = 1').run(revision);
    })();
  } finally {
    sqlite.close();
  }
  return { shipped, ms: performance.now() - started };
}

const scoreUrl = (baseUrl: string, p: LatLng) => `${baseUrl}/safety/score?latitude=${p.latitude.toFixed(5)}&longitude=${p.longitude.toFixed(5)}`;

/** Like `measure`, but every connection cycles through `paths` (autocannon's `requests`). */
async function measureRotating(baseUrl: string, paths: string[], headers: Record<string, string>, settings: LoadSettings): Promise<LoadMeasurement> {
  const origin = new URL(baseUrl).origin;
  if (!['127.0.0.1', 'localhost'].includes(new URL(origin).hostname)) throw new Error(`refusing to load a non-loopback address: ${origin}`);
  const fire = (durationS: number) =>
    autocannon({ url: origin, headers, requests: paths.map((path) => ({ method: 'GET', path })), connections: settings.connections, pipelining: 1, duration: durationS, timeout: 10 });
  if (settings.warmupS > 0) await fire(settings.warmupS);
  const result = await fire(settings.durationS);
  const statusCodes: Record<string, number> = {};
  const stats = (result as unknown as { statusCodeStats?: Record<string, { count: number }> }).statusCodeStats ?? {};
  for (const [code, { count }] of Object.entries(stats)) statusCodes[code] = count;
  const { p50, p90, p99, max, mean } = result.latency;
  return {
    requestsPerSecond: result.requests.average,
    requestsTotal: result.requests.total,
    latencyMs: { p50, p90, p99, max, mean },
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    statusCodes,
    durationS: result.duration,
  };
}

async function httpSide(context: SectionContext, synthetic: readonly IndexedEventRow[], points: readonly LatLng[], totalEvents: number, notes: string[]): Promise<ResultRow[]> {
  const database = createSqliteDatabase();
  let server: BenchChild<ServeReady> | undefined;
  let hello: BenchChild<HelloReady> | undefined;
  try {
    context.log(`[threat] SQLite file with the shipped extract + ${fmt(synthetic.length)} synthetic events`);
    const built = await buildSqliteFile(database.url, synthetic);
    context.log(`[threat] starting Tsaro server (loads ${fmt(totalEvents)} events into its index)`);
    const startStarted = performance.now();
    server = await startChild<ServeReady>('tsaro server (threat)', { script: 'bench/serve.ts', env: { DATABASE_URL: database.url }, readyTimeoutMs: 600_000 });
    const startMs = performance.now() - startStarted;
    notes.push(
      `HTTP: SQLite file built in ${fmt(built.ms / 1000, 1)} s (migrations, ${fmt(built.shipped)} shipped events through loadShippedThreatData, ` +
        `${fmt(synthetic.length)} synthetic through one prepared statement in one transaction); the server child was ready ` +
        `${fmt(startMs / 1000, 1)} s after it was started (node + tsx start, migrations, reading every event page by page, building the index).`,
    );
    hello = await startChild<HelloReady>('hello server', { script: 'bench/hello-server.ts' });
    const { baseUrl, liveKey } = server.ready;
    const headers = { authorization: `Bearer ${liveKey}` };
    const fixed = scoreUrl(baseUrl, MAIDUGURI);
    const check = await fetch(fixed, { headers });
    const body = await check.text();
    if (check.status !== 200) throw new Error(`GET ${fixed}: expected 200, got ${check.status}: ${body.slice(0, 300)}`);
    const answer = JSON.parse(body) as { score: number; level: string; breakdown: { total_incidents: number } };
    const rotating = points.slice(WARMUP_POINTS, WARMUP_POINTS + ROTATING_URLS);
    const paths = rotating.map((p) => new URL(scoreUrl(baseUrl, p)).pathname + new URL(scoreUrl(baseUrl, p)).search);
    const first = await fetch(scoreUrl(baseUrl, rotating[0]!), { headers });
    if (first.status !== 200) throw new Error(`GET ${paths[0]}: expected 200, got ${first.status}: ${(await first.text()).slice(0, 300)}`);

    context.log('[threat] bare hello');
    const bare = await measure({ url: hello.ready.url }, context.load);
    const ratio = (rps: number) => (bare.requestsPerSecond > 0 ? rps / bare.requestsPerSecond : 0);
    context.log('[threat] GET /safety/score, Maiduguri');
    const one = await measure({ url: fixed, headers }, context.load);
    context.log(`[threat] GET /safety/score, ${ROTATING_URLS} points in turn`);
    const many = await measureRotating(baseUrl, paths, headers, context.load);
    notes.push(
      `GET /safety/score: the fixed point is Maiduguri (${MAIDUGURI.latitude},${MAIDUGURI.longitude}, radius 2 km by default), a busy place in ` +
        `the shipped data: score ${answer.score} (${answer.level}), ${fmt(answer.breakdown.total_incidents)} incidents within 2 km. ` +
        `The rotating row cycles every connection through ${ROTATING_URLS} of the scored points (half near synthetic places, half anywhere covered).`,
    );
    const rows: ResultRow[] = [
      { target: 'bare express hello', engine: 'sqlite', measurement: bare },
      { target: 'GET /safety/score, Maiduguri', engine: 'sqlite', measurement: one, ratioToBare: ratio(one.requestsPerSecond) },
      { target: `GET /safety/score, ${ROTATING_URLS} points`, engine: 'sqlite', measurement: many, ratioToBare: ratio(many.requestsPerSecond) },
    ];
    for (const r of rows) {
      const m = r.measurement;
      if (m.errors || m.non2xx) notes.push(`${r.target}: ${m.errors} errors, ${m.non2xx} non-2xx, status codes ${JSON.stringify(m.statusCodes)}`);
    }
    return rows;
  } finally {
    await hello?.stop();
    await server?.stop();
    await database.drop().catch((err: unknown) => context.log(`[threat] could not remove the database: ${String(err)}`));
  }
}

// ---------------------------------------------------------------------------------------------

export const threatSection: BenchSection = {
  name: 'threat',
  description:
    'threat engine over 1,000,000 synthetic events + the shipped UCDP extract: index build and memory, score/route/heatmap per call, ' +
    'radius counts vs PostGIS, GET /safety/score vs a bare Express server',
  async run(context) {
    const eventCount = intFromEnv('BENCH_THREAT_EVENTS', 1_000_000, 0);
    const pointCount = intFromEnv('BENCH_THREAT_POINTS', 10_000, 1);
    const notes: string[] = [];
    const now = new Date();
    const today = dayNumber(now);

    context.log(`[threat] generating ${fmt(eventCount)} synthetic events around ${fmt(PLACE_COUNT)} places`);
    const generated = performance.now();
    const places = makePlaces(seededRandom(PLACE_SEED));
    const synthetic = syntheticEvents(eventCount, places, today);
    const shipped = shippedEvents();
    const rows = [...shipped, ...synthetic];
    const points = queryPoints(WARMUP_POINTS + pointCount, places);
    notes.push(
      `Data: ${fmt(synthetic.length)} synthetic events (seeded; ${fmt(PLACE_COUNT)} places on covered land, ${NIGERIA_PLACE_SHARE * 100} % of them in ` +
        `Nigeria's box; Pareto place weights; scatter 1–15 km; dated over the ${YEARS} years before ${dayText(today)}) + ${fmt(shipped.length)} ` +
        `shipped UCDP events = ${fmt(rows.length)}; generated in ${fmt((performance.now() - generated) / 1000, 1)} s. ` +
        `Score points: ${fmt(pointCount)} (+${WARMUP_POINTS} warm-up), even ones near a place (by weight), odd ones uniform over covered land.`,
    );

    const local = await inProcess(context, rows, points, now, notes);
    const tables: SectionTable[] = [local.table];
    const aims: AimCheck[] = [
      { aim: `assessArea p99 < ${AIMS.scoreP99Ms} ms (in-process)`, engine: '-', actual: `${ms(local.scores.assessArea.p99)} ms`, met: local.scores.assessArea.p99 < AIMS.scoreP99Ms },
      { aim: `safetyScore p99 < ${AIMS.scoreP99Ms} ms (in-process)`, engine: '-', actual: `${ms(local.scores.service.p99)} ms`, met: local.scores.service.p99 < AIMS.scoreP99Ms },
    ];

    const postgis = await postgisSide(context, rows, local.index, points, notes);
    if (postgis) {
      tables.push(postgis.table);
      for (const c of postgis.comparisons) {
        const ratio = c.postgis.p50 / c.index.p50;
        aims.push({ aim: `${c.radiusKm} km count >= ${AIMS.postgisRatio}x PostGIS (p50 per query)`, engine: 'postgres', actual: `${fmt(ratio, 1)} x`, met: ratio >= AIMS.postgisRatio });
        aims.push({ aim: `${c.radiusKm} km counts equal PostGIS`, engine: 'postgres', actual: `${fmt(c.equal)} of ${fmt(c.points)}`, met: c.equal === c.points });
      }
    }

    let httpRows: ResultRow[] = [];
    if (process.env.BENCH_THREAT_HTTP === '0') notes.push('HTTP: skipped (BENCH_THREAT_HTTP=0).');
    else httpRows = await httpSide(context, synthetic, points, rows.length, notes);

    return {
      name: 'threat',
      rows: httpRows,
      aims,
      notes,
      tables,
      data: { events: rows.length, synthetic: synthetic.length, shipped: shipped.length, points: pointCount, inProcess: local.data, postgis: postgis?.data, sink: local.sink },
    };
  },
};
