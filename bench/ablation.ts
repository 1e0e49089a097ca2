/**
 * The CPU budget of an aim, measured by taking parts away (issue #33): how fast would
 * `GET /incidents/{id}` or `POST /incidents` be against its floor row without the request log,
 * the metrics, the rate limit, the ETag, the key cache's revocation check, the audit entry, the
 * event (and its webhook deliveries) or the dispatch opening?
 *
 * Nothing here ships. The script copies the committed tree (`git archive HEAD`) to a scratch
 * folder, applies bench/ablation.patch there (each part behind `ABL=<part>,...` in the server's
 * environment) and runs the http-api section in that copy once per variant, the variants
 * alternating, `BENCH_ABLATION_PASSES` times (these machines drift by ±10 % between runs). It
 * prints each variant's ratio to its floor row and its CPU per request, run by run and their p50
 * (bench/lib/stats.ts: the nearest rank, so the lower of two runs).
 *
 *   node --import tsx bench/ablation.ts get    # SQLite GET /incidents/{id}: full, then without ops, limit, etag, keyver
 *   node --import tsx bench/ablation.ts post   # POST /incidents on both engines: full, then also without audit, event, dispatch
 *
 * Settings: BENCH_ABLATION_PASSES (default 2), BENCH_ABLATION_VARIANTS (`;`-separated lists of
 * parts, `full` for none), BENCH_ENGINES, BENCH_DURATION_S / BENCH_WARMUP_S (default 6 / 1, as
 * the issue's command), and whatever else `npm run bench` reads.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './lib/children.ts';
import { summarize } from './lib/stats.ts';

type Kind = 'get' | 'post';
const kind = process.argv[2] as Kind;
if (kind !== 'get' && kind !== 'post') {
  process.stderr.write('usage: node --import tsx bench/ablation.ts get|post\n');
  process.exit(2);
}

const DEFAULT_VARIANTS: Record<Kind, string[]> = {
  get: ['full', 'ops', 'ops,limit,etag', 'ops,limit,etag,keyver'],
  post: ['full', 'ops,limit,etag', 'ops,limit,etag,audit', 'ops,limit,etag,audit,event', 'ops,limit,etag,audit,event,dispatch'],
};
const variants = process.env.BENCH_ABLATION_VARIANTS?.split(';').map((v) => v.trim()).filter(Boolean) ?? DEFAULT_VARIANTS[kind];
const passes = Number(process.env.BENCH_ABLATION_PASSES ?? 2);
const target = kind === 'get' ? { rows: 'get,floor', prefix: 'GET /incidents', floor: 'floor: bare Express + 1 SELECT' } : { rows: 'post,floor', prefix: 'POST /incidents', floor: 'floor: bare Express + 1 INSERT (not durable)' };
const engines = process.env.BENCH_ENGINES ?? (kind === 'get' ? 'sqlite' : 'sqlite,postgres');

const scratch = mkdtempSync(join(tmpdir(), 'tsaro-ablation-'));
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));
execFileSync('bash', ['-c', `git -C "${REPO_ROOT}" archive HEAD | tar -x -C "${scratch}"`]);
symlinkSync(join(REPO_ROOT, 'node_modules'), join(scratch, 'node_modules'));
execFileSync('git', ['apply', join(REPO_ROOT, 'bench', 'ablation.patch')], { cwd: scratch });

interface Row {
  target: string;
  engine: string;
  measurement: { requestsPerSecond: number; latencyMs: { p99: number }; cpu?: { server: number; database: number } };
}
const runs: Array<{ variant: string; engine: string; ratio: number; p99: number; server: number; database: number }> = [];
const resultsDir = join(scratch, 'bench', 'results');

for (let pass = 1; pass <= passes; pass++) {
  // Alternate the order, so drift over the run does not favour the first variant.
  const order = pass % 2 === 1 ? variants : [...variants].reverse();
  for (const variant of order) {
    process.stderr.write(`[ablation] pass ${pass}/${passes}: ${variant}\n`);
    const before = new Set(safeList(resultsDir));
    const run = spawnSync('npm', ['run', 'bench'], {
      cwd: scratch,
      stdio: ['ignore', 'ignore', 'inherit'],
      env: {
        ...process.env,
        // The copy has no .git: the results record the commit it was taken from.
        GIT_DIR: join(REPO_ROOT, '.git'),
        ABL: variant === 'full' ? '' : variant,
        BENCH_ONLY: 'http-api',
        BENCH_TARGETS: target.rows,
        BENCH_ENGINES: engines,
        BENCH_DURATION_S: process.env.BENCH_DURATION_S ?? '6',
        BENCH_WARMUP_S: process.env.BENCH_WARMUP_S ?? '1',
      },
    });
    const file = safeList(resultsDir).find((f) => !before.has(f));
    if (run.status !== 0 || !file) throw new Error(`ablation: the bench of ${variant} failed (exit ${run.status})`);
    const rows = (JSON.parse(readFileSync(join(resultsDir, file), 'utf8')) as { sections: Array<{ rows: Row[] }> }).sections[0]!.rows;
    for (const engine of engines.split(',')) {
      const mine = rows.find((r) => r.engine === engine && r.target.startsWith(target.prefix));
      const floor = rows.find((r) => r.engine === engine && r.target === target.floor);
      if (!mine || !floor) throw new Error(`ablation: ${variant} on ${engine} has no ${target.prefix} or floor row`);
      runs.push({
        variant,
        engine,
        ratio: mine.measurement.requestsPerSecond / floor.measurement.requestsPerSecond,
        p99: mine.measurement.latencyMs.p99,
        server: mine.measurement.cpu?.server ?? NaN,
        database: mine.measurement.cpu?.database ?? NaN,
      });
    }
  }
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

process.stdout.write(`\n== ablation: ${target.prefix} against "${target.floor}" (${passes} passes) ==\n\n`);
for (const engine of engines.split(',')) {
  for (const variant of variants) {
    const mine = runs.filter((r) => r.engine === engine && r.variant === variant);
    const list = (pick: (r: (typeof mine)[number]) => number, digits: number) => mine.map((r) => pick(r).toFixed(digits)).join(' / ');
    process.stdout.write(
      `${engine.padEnd(9)} ${(variant === 'full' ? 'full' : `without ${variant}`).padEnd(48)} ratio ${summarize(mine.map((r) => r.ratio)).p50.toFixed(2)}x (${list((r) => r.ratio, 2)})  ` +
        `server ${list((r) => r.server, 0)} µs  db ${list((r) => r.database, 0)} µs  p99 ${list((r) => r.p99, 0)} ms\n`,
    );
  }
}
