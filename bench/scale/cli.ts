/**
 * `npm run scale`: generate a year and keep it (issue #45). Prints where it is and what it cost.
 *
 *   BENCH_SCALE_ENGINE   sqlite (default) or postgres
 *   BENCH_SCALE_PATH     SQLite: the file to make (default bench/scale/years/year-<visits>.db)
 *   BENCH_SCALE_SERVE_SCRIPT  the server that migrates and seeds it (default bench/serve.ts); an
 *                        older tree's (`/tmp/old/bench/serve.ts`) makes a year on its schema, for
 *                        BENCH_SCALE_UPGRADE_FROM (bench/scale/upgrade.ts)
 *   sizes: see bench/scale/generate.ts (BENCH_SCALE_VISITS, ...)
 *
 * Then `BENCH_SCALE_FROM=<path|url> BENCH_ONLY=scale npm run bench` measures it.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { REPO_ROOT } from '../lib/children.ts';
import { createPostgresDatabase, describePostgres, postgresAdminUrl } from '../lib/databases.ts';
import { generateYear, sizesFromEnv } from './generate.ts';
import { describeYear } from './report.ts';

const log = (line: string) => process.stderr.write(`${line}\n`);

async function main() {
  const engine = process.env.BENCH_SCALE_ENGINE === 'postgres' ? 'postgres' : 'sqlite';
  const sizes = sizesFromEnv();
  let url: string;
  if (engine === 'sqlite') {
    url = process.env.BENCH_SCALE_PATH || join(REPO_ROOT, 'bench', 'scale', 'years', `year-${sizes.visits}.db`);
    if (existsSync(url)) throw new Error(`${url} exists; remove it or name another BENCH_SCALE_PATH`);
    mkdirSync(dirname(url), { recursive: true });
  } else {
    // Kept: not dropped at the end (the cleanup is never run here).
    url = (await createPostgresDatabase(postgresAdminUrl())).url;
  }
  log(`generating a year in ${engine === 'sqlite' ? url : describePostgres(url)}`);
  const year = await generateYear(engine, url, sizes, log, { serveScript: process.env.BENCH_SCALE_SERVE_SCRIPT || undefined });
  process.stdout.write(`${describeYear(year).join('\n')}\nBENCH_SCALE_FROM=${url}\n`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    log(`scale failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
