/**
 * Section `scale`: reads and the SOS on a year of data (issue #45).
 *
 * Per engine (BENCH_ENGINES): a year generated into a fresh database (bench/scale/generate.ts;
 * sizes BENCH_SCALE_VISITS etc.), or the one BENCH_SCALE_FROM names (a SQLite path or a
 * postgres:// URL kept by an earlier run: `npm run scale`, or BENCH_SCALE_KEEP=1 here). Then,
 * against the server on it (bench/serve.ts), bench/scale/load.ts's measurements:
 *
 *   - every request of LOAD_REQUESTS (lists' first pages, each filter, search, a cursor page half a
 *     year deep, stats and analytics over a year, the small organization's) with 10 connections
 *     for BENCH_SCALE_LOAD_S seconds (default 10). The base of the ratio column: GET
 *     /access-logs on an empty database of the same engine, measured in the same block.
 *   - SOSs, then code validations, at 50 a second (open loop) for BENCH_SCALE_SOS_S seconds
 *     (default 20): alone, then while 20 connections run the heaviest reads without pause; and the
 *     small organization's first page at 20 a second, alone and beside the big one's readers.
 *
 * BENCH_SCALE_KEEP=1 keeps a generated year (its path or URL is printed); otherwise it is removed.
 * BENCH_SCALE_UPGRADE_FROM=<path|url>: a year generated on an older version's schema (made with
 * BENCH_SCALE_SERVE_SCRIPT=<that tree>/bench/serve.ts; bench/scale/upgrade.ts) is upgraded by this
 * code's server, timed with SOSs during it.
 * BENCH_SCALE_READS=0 skips the reads and the SOS runs (the upgrade alone).
 *
 * Run alone: `BENCH_ONLY=scale npm run bench`.
 */
import { Agent, request } from 'undici';
import { startChild } from './lib/children.ts';
import { createEngineDatabase, describePostgres, type BenchDatabase } from './lib/databases.ts';
import { measure } from './lib/load.ts';
import { enginesWanted, intFromEnv, type Engine } from './lib/settings.ts';
import type { AimCheck, BenchSection, ResultRow, SectionContext, SectionResult, SectionTable } from './lib/section.ts';
import { generateYear, loadYear, sizesFromEnv, type GeneratedYear } from './scale/generate.ts';
import { cancelOpenIncidents, deepCursor, firstPageOf, heaviestReads, loadReads, manyUseCodes, openLoop, sosOf, validationOf, type OpenLoop } from './scale/load.ts';
import { describeYear, mb } from './scale/report.ts';
import { measureUpgrade } from './scale/upgrade.ts';
import { CONSOLE_AIM_S, timeConsoleScreens } from './scale/console.ts';

const AIMS = { listP99Ms: 50, reportP99Ms: 100, sosP99Ms: 50, sosRatio: 1.5 };

interface Ready {
  baseUrl: string;
  liveKey?: string;
  pid: number;
}

const engineOf = (url: string): Engine => (/^postgres(ql)?:\/\//.test(url) ? 'postgres' : 'sqlite');
const where = (year: { engine: Engine; url: string }) => (year.engine === 'postgres' ? describePostgres(year.url) : year.url);

/** 20 connections running the heaviest reads in turn without pause, until `stop`. */
function heavyReaders(urls: string[], headers: Record<string, string>, connections = 20) {
  const agent = new Agent({ connections, pipelining: 1 });
  const statuses: Record<string, number> = {};
  let stopped = false;
  let answered = 0;
  const started = performance.now();
  const workers = Array.from({ length: connections }, async (_, w) => {
    for (let i = w; !stopped; i++) {
      try {
        const answer = await request(urls[i % urls.length]!, { headers, dispatcher: agent, headersTimeout: 60_000, bodyTimeout: 60_000 });
        await answer.body.dump();
        statuses[answer.statusCode] = (statuses[answer.statusCode] ?? 0) + 1;
      } catch {
        statuses.error = (statuses.error ?? 0) + 1;
      }
      answered++;
    }
  });
  return {
    async stop() {
      stopped = true;
      await Promise.all(workers);
      await agent.close();
      return { answered, perSecond: answered / ((performance.now() - started) / 1000), statuses };
    },
  };
}

const fmt = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1));
const statusText = (statuses: Record<string, number>) => Object.entries(statuses).map(([s, n]) => `${s}: ${n}`).join(', ');

async function measureEngine(engine: Engine, context: SectionContext, out: { rows: ResultRow[]; aims: AimCheck[]; notes: string[]; tables: SectionTable[]; data: Record<string, unknown> }) {
  const { log } = context;
  const from = process.env.BENCH_SCALE_FROM?.trim();
  let year: GeneratedYear;
  let database: BenchDatabase | undefined;
  if (from && engineOf(from) === engine) {
    year = await loadYear(engine, from);
    log(`scale (${engine}): reusing the year at ${where(year)}`);
  } else {
    database = await createEngineDatabase(engine, (line) => out.notes.push(line), 'scale');
    if (!database) return;
    log(`scale (${engine}): generating a year`);
    year = await generateYear(engine, database.url, sizesFromEnv(), log);
  }
  for (const line of describeYear(year)) log(`scale (${engine}): ${line}`);
  out.data[`${engine}Year`] = { ...year, url: where(year), big: { ...year.big, liveKey: undefined }, small: { ...year.small, liveKey: undefined } };
  const loadS = intFromEnv('BENCH_SCALE_LOAD_S', 10, 1);
  const sosS = intFromEnv('BENCH_SCALE_SOS_S', 20, 2);
  try {
    // The base: the first page of visits on an empty database of the same engine, now.
    const empty = await createEngineDatabase(engine, (line) => out.notes.push(line), 'scale base');
    if (empty) {
      const bare = await startChild<Ready>(`tsaro server (${engine}, empty)`, { script: 'bench/serve.ts', env: { DATABASE_URL: empty.url } });
      try {
        const base = await measure({ url: `${bare.ready.baseUrl}/access-logs`, headers: { authorization: `Bearer ${bare.ready.liveKey}` } }, { connections: 10, durationS: loadS, warmupS: 1 });
        out.rows.push({ target: 'empty database: GET /access-logs', engine, measurement: base });
      } finally {
        await bare.stop();
        await empty.drop();
      }
    }
    const baseRate = out.rows.at(-1)?.engine === engine ? out.rows.at(-1)!.measurement.requestsPerSecond : undefined;
    const server = await startChild<Ready>(`tsaro server (${engine}, a year)`, { script: 'bench/serve.ts', env: { DATABASE_URL: year.url, BENCH_SERVE_ORGANIZATION: '0' }, readyTimeoutMs: 600_000 });
    try {
      const baseUrl = server.ready.baseUrl;
      for (const { request: req, measurement } of await loadReads(baseUrl, year, loadS, (line) => log(`scale (${engine}): ${line}`))) {
        out.rows.push({ target: req.name, engine, measurement, ...(baseRate ? { ratioToBare: measurement.requestsPerSecond / baseRate } : {}) });
        const aim = req.kind === 'list' ? AIMS.listP99Ms : AIMS.reportP99Ms;
        out.aims.push({ aim: `${req.name.trim()} p99 < ${aim} ms`, engine, actual: measurement.requestsPerSecond > 0 ? `${fmt(measurement.latencyMs.p99)} ms${measurement.non2xx ? ` (${measurement.non2xx} not 2xx)` : ''}` : 'none answered', met: measurement.requestsPerSecond > 0 && measurement.latencyMs.p99 < aim && measurement.non2xx === 0 });
      }
      // The console's screens, to their first rows, for an owner of the big organization.
      const screens = await timeConsoleScreens({ baseUrl, databaseUrl: year.url, organizationId: year.big.organizationId, liveKey: year.big.liveKey }, 3, (line) => log(`${line} (${engine})`));
      if (!screens) out.notes.push('The console screens were not timed: no Chromium (CHROMIUM_PATH).');
      else {
        out.tables.push({
          title: `The console on the year: first rows of each screen, a fresh profile each time, median of 3 (${engine})`,
          header: ['screen', 'engine', 'median s', 'worst s'],
          rows: screens.map((time) => [time.screen, engine, time.p50S.toFixed(2), time.worstS.toFixed(2)]),
        });
        for (const time of screens) out.aims.push({ aim: `console ${time.screen}: first rows < ${CONSOLE_AIM_S} s`, engine, actual: `${time.p50S.toFixed(2)} s`, met: time.p50S < CONSOLE_AIM_S });
      }
      // The emergency path: alone, then beside 20 connections of the heaviest reads.
      const headers = { authorization: `Bearer ${year.big.liveKey}` };
      const heavy = heaviestReads(baseUrl, year.big, await deepCursor(baseUrl, year.big));
      const codes = await manyUseCodes(baseUrl, year.big, 30);
      const settle = async () => {
        const n = await cancelOpenIncidents(baseUrl, year.big);
        if (n) log(`scale (${engine}): cancelled ${n} open incidents (earlier SOSs) before the next run`);
      };
      await settle();
      const sosTable: string[][] = [];
      for (const [name, make] of [
        ['POST /incidents (SOS)', (run: string) => sosOf(baseUrl, year.big, `${engine}-${run}-${Date.now()}`)],
        ['POST /access-codes/validate', () => validationOf(baseUrl, year.big, codes)],
        ['POST /access-codes/validate (Idempotency-Key, as a kiosk)', (run: string) => validationOf(baseUrl, year.big, codes, `${engine}-${run}-${Date.now()}`)],
      ] as const) {
        const alone = await openLoop(make('alone'), 50, sosS);
        await settle();
        const readers = heavyReaders(heavy, headers);
        let busy: OpenLoop;
        let reads: Awaited<ReturnType<typeof readers.stop>>;
        try {
          busy = await openLoop(make('busy'), 50, sosS);
        } finally {
          reads = await readers.stop();
        }
        await settle();
        const ratio = busy.p99 / Math.max(alone.p99, 0.001);
        log(`scale (${engine}): ${name} at 50/s: alone p99 ${fmt(alone.p99)} ms, with 20 heavy readers p99 ${fmt(busy.p99)} ms (${ratio.toFixed(2)}x); reads ${reads.perSecond.toFixed(1)}/s ${statusText(reads.statuses)}`);
        sosTable.push([name, engine, fmt(alone.p50), fmt(alone.p99), fmt(busy.p50), fmt(busy.p99), fmt(busy.max), `${ratio.toFixed(2)}x`, statusText(busy.statuses), `${reads.perSecond.toFixed(1)}/s (${statusText(reads.statuses)})`]);
        out.aims.push({ aim: `${name} p99 < ${AIMS.sosP99Ms} ms beside 20 heavy readers`, engine, actual: `${fmt(busy.p99)} ms`, met: busy.p99 < AIMS.sosP99Ms && busy.failed === 0 });
        out.aims.push({ aim: `${name} p99 with reads <= ${AIMS.sosRatio}x alone`, engine, actual: `${ratio.toFixed(2)}x`, met: ratio <= AIMS.sosRatio });
        out.data[`${engine} ${name}`] = { alone: { ...alone, latencies: undefined }, busy: { ...busy, latencies: undefined }, reads };
      }
      // Another organization's first page while the big one's readers fill the lane: the lane's
      // turns between organizations (server/db/fair-queue.ts) keep it from waiting behind them.
      {
        const name = "small: GET /access-logs beside the big organization's readers";
        const alone = await openLoop(firstPageOf(baseUrl, year.small), 20, sosS);
        const readers = heavyReaders(heavy, headers);
        let busy: OpenLoop;
        let reads: Awaited<ReturnType<typeof readers.stop>>;
        try {
          busy = await openLoop(firstPageOf(baseUrl, year.small), 20, sosS);
        } finally {
          reads = await readers.stop();
        }
        const ratio = busy.p99 / Math.max(alone.p99, 0.001);
        log(`scale (${engine}): ${name} at 20/s: alone p99 ${fmt(alone.p99)} ms, beside the readers p99 ${fmt(busy.p99)} ms (${ratio.toFixed(2)}x)`);
        sosTable.push([`${name} (20/s)`, engine, fmt(alone.p50), fmt(alone.p99), fmt(busy.p50), fmt(busy.p99), fmt(busy.max), `${ratio.toFixed(2)}x`, statusText(busy.statuses), `${reads.perSecond.toFixed(1)}/s (${statusText(reads.statuses)})`]);
        out.data[`${engine} ${name}`] = { alone: { ...alone, latencies: undefined }, busy: { ...busy, latencies: undefined }, reads };
      }
      out.tables.push({
        title: `The emergency path at 50 a second, open loop, ${sosS} s each (${engine})`,
        header: ['request', 'engine', 'alone p50 ms', 'alone p99 ms', 'with reads p50 ms', 'with reads p99 ms', 'max ms', 'p99 ratio', 'statuses', 'heavy reads'],
        rows: sosTable,
      });
    } finally {
      await server.stop();
    }
    out.tables.push({
      title: `The year (${engine})`,
      header: ['engine', 'visits', 'codes', 'incidents', 'events', 'audit', 'texts', 'build s', 'database', 'tables', 'indexes', 'text indexes'],
      rows: [[engine, ...Object.values(year.big.sizes).map((n) => n.toLocaleString('en')), String(year.buildSeconds.total ?? '-'), mb(year.size.bytes), mb(year.size.tableBytes), mb(year.size.indexBytes), mb(year.size.textIndexBytes)]],
    });
  } finally {
    if (database) {
      if (process.env.BENCH_SCALE_KEEP === '1') out.notes.push(`kept the ${engine} year: BENCH_SCALE_FROM=${database.url}`);
      else await database.drop();
    }
  }
}

async function run(context: SectionContext): Promise<SectionResult> {
  const out = { rows: [] as ResultRow[], aims: [] as AimCheck[], notes: [] as string[], tables: [] as SectionTable[], data: {} as Record<string, unknown> };
  if (process.env.BENCH_SCALE_READS !== '0') for (const engine of enginesWanted()) await measureEngine(engine, context, out);
  const upgradeFrom = process.env.BENCH_SCALE_UPGRADE_FROM?.trim();
  if (upgradeFrom) {
    const engine = engineOf(upgradeFrom);
    const year = await loadYear(engine, upgradeFrom);
    const upgrade = await measureUpgrade(upgradeFrom, engine, year.big, context.log);
    const slowest = [...upgrade.migrations].sort((a, b) => b.ms - a.ms).slice(0, 3);
    out.tables.push({
      title: `The upgrade of a year from ${upgrade.from}`,
      header: ['engine', 'visits', 'to serve s', 'slowest migrations', 'indexes built s', 'year folded s', 'SOS p50 ms', 'SOS p99 ms', 'SOS max ms', 'statuses'],
      rows: [
        [
          engine,
          year.big.sizes.visits.toLocaleString('en'),
          (upgrade.toServeMs / 1000).toFixed(1),
          slowest.map((migration) => `${migration.name} ${(migration.ms / 1000).toFixed(1)} s`).join(', '),
          (upgrade.indexesMs / 1000).toFixed(1),
          (upgrade.foldMs / 1000).toFixed(1),
          fmt(upgrade.sos.p50),
          fmt(upgrade.sos.p99),
          fmt(upgrade.sos.max),
          statusText(upgrade.sos.statuses),
        ],
      ],
    });
    out.data.upgrade = { ...upgrade, sos: { ...upgrade.sos, latencies: undefined } };
  }
  out.notes.push('Ratio column: requests/s against GET /access-logs on an empty database of the same engine, measured in the same block. The machine is shared (2 cores, other engineers\' work): read the ratios, not the absolute figures.');
  return { name: 'scale', rows: out.rows, aims: out.aims, notes: out.notes, tables: out.tables, data: out.data };
}

export const scaleSection: BenchSection = { name: 'scale', description: 'reads and the SOS on a generated year (issue #45)', run };
