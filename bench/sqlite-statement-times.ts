/**
 * Preload for a SQLite server child: the time each better-sqlite3 statement spends inside
 * SQLite under the bench's load, by SQL text, written when the child exits.
 *
 *   BENCH_SERVE_NODE_ARGS="--import tsx --import ./bench/sqlite-statement-times.ts" \
 *   BENCH_STATEMENT_TIMES=bench/results/statements.txt \
 *   BENCH_ONLY=http-api BENCH_ENGINES=sqlite BENCH_TARGETS=post npm run bench
 *
 * One line per statement run at least 1,000 times, most total time first: µs a run, runs, SQL.
 * It times `run`, `get` and `all` only (not `exec`: BEGIN and COMMIT of the group commit), and
 * adds two clock reads a statement, so read its numbers side by side with another tree's.
 */
import { writeFileSync } from 'node:fs';
import SqliteDatabase from 'better-sqlite3';

const out = process.env.BENCH_STATEMENT_TIMES ?? `bench/results/statements-${process.pid}.txt`;
const totals = new Map<string, { ns: bigint; runs: number }>();

const probe = new SqliteDatabase(':memory:');
const statement = Object.getPrototypeOf(probe.prepare('select 1')) as Record<'run' | 'get' | 'all', (...args: unknown[]) => unknown>;
probe.close();

for (const method of ['run', 'get', 'all'] as const) {
  const original = statement[method];
  statement[method] = function timed(this: { source: string }, ...args: unknown[]) {
    const started = process.hrtime.bigint();
    try {
      return original.apply(this, args);
    } finally {
      const total = totals.get(this.source) ?? { ns: 0n, runs: 0 };
      total.ns += process.hrtime.bigint() - started;
      total.runs += 1;
      totals.set(this.source, total);
    }
  };
}

process.on('exit', () => {
  const lines = [...totals]
    .filter(([, total]) => total.runs >= 1000)
    .sort(([, a], [, b]) => Number(b.ns - a.ns))
    .map(([sql, total]) => `${(Number(total.ns) / total.runs / 1000).toFixed(1).padStart(7)} µs ${String(total.runs).padStart(8)}  ${sql.replace(/\s+/g, ' ').slice(0, 160)}`);
  writeFileSync(out, `${lines.join('\n')}\n`);
});
