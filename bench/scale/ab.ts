/**
 * A/B on one generated year (issue #45): another tree's server ("base") and this tree's ("head"),
 * each on its own copy of the same year, asked the same reads one request at a time in
 * alternation, then at 10 connections in alternation, then validations with an Idempotency-Key
 * each and SOSs at 50/s beside 20 heavy readers, base and head alternating. On a machine others
 * load, the alternation loads both alike; read the ratios.
 *
 *   node --import tsx bench/scale/ab.ts <sqlite|postgres> <base tree> <base year> <head year>
 *
 * A tree is a checkout (`git archive main | tar -x -C /tmp/base`, with node_modules linked); a
 * year is a copy of one `npm run scale` made (a SQLite file, or `create database ... template`).
 * AB_ROUNDS (25) one-at-a-time rounds; AB_SOS_S (15) seconds per open-loop run; AB_CONC=0 or
 * AB_SOS=0 skip those parts; AB_ONLY (a regular expression) keeps only the reads it matches.
 * AB_READERS (20): the heavy readers beside the open loops, or a comma list of counts run in turn
 * within each round (`0,20`: alone, then beside 20, for the ratio); AB_PLAIN=1 also sends
 * validations without a key. Each side first gets 5 s of each, unmeasured (a cold server).
 */
import { Agent, request } from 'undici';
import { startChild } from '../lib/children.ts';
import { loadYear } from './generate.ts';
import { deepCursor, heaviestReads, manyUseCodes, openLoop, validationOf, sosOf, cancelOpenIncidents } from './load.ts';

const [engine, baseTree, baseUrlDb, headUrlDb] = process.argv.slice(2) as [string, string, string, string];
const ROUNDS = Number(process.env.AB_ROUNDS ?? 25);
const SOS_S = Number(process.env.AB_SOS_S ?? 15);
type Ready = { baseUrl: string };
const yearB = await loadYear(engine as any, baseUrlDb);
const yearH = await loadYear(engine as any, headUrlDb);
const base = await startChild<Ready>('base', { script: `${baseTree}/bench/serve.ts`, env: { DATABASE_URL: baseUrlDb, BENCH_SERVE_ORGANIZATION: '0' }, readyTimeoutMs: 600_000 });
const head = await startChild<Ready>('head', { script: 'bench/serve.ts', env: { DATABASE_URL: headUrlDb, BENCH_SERVE_ORGANIZATION: '0' }, readyTimeoutMs: 600_000 });
const sides = [
  { name: 'base', url: base.ready.baseUrl, year: yearB },
  { name: 'head', url: head.ready.baseUrl, year: yearH },
];
// An upgrade's indexes are built online after the server serves (PostgreSQL): compare once they are there.
for (const side of sides) {
  for (let waited = 0; ; waited += 500) {
    const health = (await (await fetch(`${side.url}/health`)).json()) as { health?: { indexes?: unknown } };
    if (!health.health?.indexes) break;
    if (waited > 600_000) throw new Error(`${side.name}: index builds still running after 10 minutes`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
const q = encodeURIComponent;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const yearAgo = day(Date.now() - 365 * 86_400_000), today = day(Date.now());
const p = yearB.big.probes;
const cursors = { base: await deepCursor(sides[0]!.url, yearB.big), head: await deepCursor(sides[1]!.url, yearH.big) };
type Target = [string, (side: 'base' | 'head') => string];
const targets = ([
  ['GET /access-logs', () => '/access-logs'],
  ['?search=<a visitor name>', () => `/access-logs?search=${q(p.visitorName)}`],
  ['?search=<6 digits of a phone>', () => `/access-logs?search=${q(p.visitorPhone.slice(-6))}`],
  ['?search=<a first name> (5,000 visits)', () => `/access-logs?search=${q(p.visitorName.split(' ')[0]!)}`],
  ['GET /incidents?search=<a first name>', () => `/incidents?search=${q(p.visitorName.split(' ')[0]!)}`],
  ['?page=<half a year deep> (offset)', () => `/access-logs?page=${p.deepPage}`],
  ['?cursor=<half a year deep>', (side) => `/access-logs?cursor=${q(cursors[side])}`],
  ['GET /incidents/analytics (a year)', () => `/incidents/analytics?from_date=${yearAgo}`],
  ['GET /incidents/analytics (Lagos days)', () => `/incidents/analytics?from_date=${yearAgo}T23:00:00Z&to_date=${today}T23:00:00Z`],
  ['small: ?search=<a name>', () => `/access-logs?search=${q(yearB.small.probes.visitorName)}`],
] as Target[]).filter(([name]) => !process.env.AB_ONLY || new RegExp(process.env.AB_ONLY).test(name));
const agent = new Agent({ connections: 4 });
const once = async (side: (typeof sides)[number], path: string, small = false) => {
  const key = small ? side.year.small.liveKey : side.year.big.liveKey;
  const t = performance.now();
  const answer = await request(side.url + path, { headers: { authorization: `Bearer ${key}` }, dispatcher: agent });
  const body = await answer.body.text();
  if (answer.statusCode !== 200) throw new Error(`${side.name} ${path}: ${answer.statusCode} ${body.slice(0, 200)}`);
  return { ms: performance.now() - t, body };
};
const stat = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return { p50: s[Math.floor(s.length / 2)]!, p90: s[Math.floor(s.length * 0.9)]! }; };
console.log(`A/B ${engine}, ${ROUNDS} rounds one at a time, load ${(await import('node:os')).loadavg().map((x) => x.toFixed(1)).join(' ')}`);
for (const [name, path] of targets) {
  const small = name.startsWith('small');
  const ms: Record<string, number[]> = { base: [], head: [] };
  const totals: Record<string, unknown> = {};
  for (let r = 0; r < ROUNDS + 3; r++) {
    for (const side of r % 2 ? [...sides].reverse() : sides) {
      const { ms: t, body } = await once(side, path(side.name as 'base' | 'head'), small);
      if (r >= 3) ms[side.name]!.push(t);
      const parsed = JSON.parse(body);
      totals[side.name] = parsed.totalResults ?? parsed.total;
    }
  }
  const b = stat(ms.base!), h = stat(ms.head!);
  console.log(`${name.padEnd(40)} base p50 ${b.p50.toFixed(1)} p90 ${b.p90.toFixed(1)} | head p50 ${h.p50.toFixed(1)} p90 ${h.p90.toFixed(1)} | head/base ${(h.p50 / b.p50).toFixed(2)}x | totals ${JSON.stringify(totals)}`);
}
if (process.env.AB_CONC !== '0') {
  const { measure } = await import('../lib/load.ts');
  const loadTargets = targets.filter(([name]) => /search|page=|Lagos|GET \/access-logs$/.test(name));
  for (const [name, path] of loadTargets) {
    const small = name.startsWith('small');
    const got: Record<string, Array<{ p50: number; p99: number; rate: number }>> = { base: [], head: [] };
    for (let round = 0; round < 2; round++) {
      for (const side of round % 2 ? [...sides].reverse() : sides) {
        const key = small ? side.year.small.liveKey : side.year.big.liveKey;
        const m = await measure({ url: side.url + path(side.name as 'base' | 'head'), headers: { authorization: `Bearer ${key}` } }, { connections: 10, durationS: 3, warmupS: 1 });
        got[side.name]!.push({ p50: m.latencyMs.p50, p99: m.latencyMs.p99, rate: m.requestsPerSecond });
      }
    }
    const fmt = (xs: Array<{ p50: number; p99: number; rate: number }>) => xs.map((x) => `${x.p50}/${x.p99} ms ${Math.round(x.rate)}/s`).join(', ');
    const rate = (xs: Array<{ rate: number }>) => xs.reduce((a, x) => a + x.rate, 0);
    console.log(`10 conn. ${name.padEnd(40)} base ${fmt(got.base!)} | head ${fmt(got.head!)} | rate head/base ${(rate(got.head!) / rate(got.base!)).toFixed(2)}x`);
  }
}
if (process.env.AB_SOS !== '0') {
  const readerCounts = (process.env.AB_READERS ?? '20').split(',').map(Number);
  const plain = process.env.AB_PLAIN === '1';
  const codes = { base: await manyUseCodes(sides[0]!.url, yearB.big, 30), head: await manyUseCodes(sides[1]!.url, yearH.big, 30) };
  // Unmeasured: a server's first validations and SOSs run cold (JIT, caches), which the first side measured would pay alone.
  for (const side of sides) {
    await openLoop(validationOf(side.url, side.year.big, codes[side.name as 'base' | 'head'], `ab-warm-${side.name}-${Date.now()}`), 50, 5);
    await openLoop(sosOf(side.url, side.year.big, `ab-warm-${side.name}-${Date.now()}`), 50, 5);
    await cancelOpenIncidents(side.url, side.year.big);
  }
  const fmtRun = (run: Awaited<ReturnType<typeof openLoop>>) => `p50 ${run.p50.toFixed(1)} p99 ${run.p99.toFixed(1)} max ${run.max.toFixed(0)} ${JSON.stringify(run.statuses)}`;
  for (let round = 0; round < 2; round++) {
    for (const side of round % 2 ? [...sides].reverse() : sides) {
      const year = side.year;
      const heavy = heaviestReads(side.url, year.big, await deepCursor(side.url, year.big));
      const headers = { authorization: `Bearer ${year.big.liveKey}` };
      for (const readers of readerCounts) {
        const ag = new Agent({ connections: Math.max(readers, 1) });
        let stopped = false; let answered = 0;
        const workers = Array.from({ length: readers }, async (_, w) => { for (let i = w; !stopped; i++) { try { const a = await request(heavy[i % heavy.length]!, { headers, dispatcher: ag, headersTimeout: 60_000, bodyTimeout: 60_000 }); await a.body.dump(); } catch { /* a reader's failure is counted as a read; only the validations are measured */ } answered++; } });
        const run = `ab-${side.name}-${round}-${readers}-${Date.now()}`;
        const keyed = await openLoop(validationOf(side.url, year.big, codes[side.name as 'base' | 'head'], run), 50, SOS_S);
        const unkeyed = plain ? await openLoop(validationOf(side.url, year.big, codes[side.name as 'base' | 'head']), 50, SOS_S) : undefined;
        const sos = await openLoop(sosOf(side.url, year.big, run), 50, SOS_S);
        stopped = true; await Promise.all(workers); await ag.close();
        await cancelOpenIncidents(side.url, year.big);
        console.log(`round ${round} ${side.name} beside ${readers} readers: keyed validate ${fmtRun(keyed)}${unkeyed ? `; validate without a key ${fmtRun(unkeyed)}` : ''}; SOS ${fmtRun(sos)}; reads ${answered}`);
      }
    }
  }
}
await agent.close();
await base.stop();
await head.stop();
process.exit(0);
