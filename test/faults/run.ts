import { formatTable, rowPasses, runFaultSuite } from './lib/suite.ts';

/**
 * `npm run faults`: three API hosts behind HAProxy on a private PostgreSQL and Redis, one fault
 * at a time under load, then the table. Options: `--only "<part of a fault's name>"` (repeatable),
 * `--load-s N` (load seconds per fault, at most 60), `--keep` (keep logs and configs).
 * Exits 1 when any row loses an acknowledged write, answers without the error shape, leaves
 * an event undelivered or sees a host exit.
 */
const args = process.argv.slice(2);
const only: string[] = [];
let loadS: number | undefined;
let keep = false;
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--only') only.push(args[++i]!);
  else if (args[i] === '--load-s') loadS = Number(args[++i]);
  else if (args[i] === '--keep') keep = true;
  else {
    process.stderr.write(`unknown option ${args[i]}\n`);
    process.exit(2);
  }
}
const started = Date.now();
const rows = await runFaultSuite({ only: only.length ? only : undefined, loadS, keep });
process.stdout.write(`\n${formatTable(rows)}\n\n${rows.length} faults in ${Math.round((Date.now() - started) / 1000)} s\n`);
for (const row of rows) for (const line of [...row.exits, ...row.noAnswer]) process.stdout.write(`  ${row.fault}: ${line}\n`);
process.exit(rows.every(rowPasses) ? 0 : 1);
