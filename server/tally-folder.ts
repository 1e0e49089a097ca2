import { CODE_TALLY } from './access-codes/service.ts';
import { VISIT_TALLY } from './access-logs/service.ts';
import { AUDIT_TALLY } from './audit/service.ts';
import { FOLD_BATCH, foldTallies, type TallySpec } from './db/tallies.ts';
import type { Db } from './db/schema.ts';
import { EVENT_TALLY } from './events/service.ts';
import { INCIDENT_TALLY } from './incidents/service.ts';
import type { Job } from './jobs/runner.ts';
import { MESSAGE_TALLY } from './messages/service.ts';
import { DELIVERY_TALLY } from './webhooks/service.ts';

/** Every tallied table (server/db/tallies.ts), each declared by the feature that owns it. */
export const TALLIED_TABLES: readonly TallySpec[] = [VISIT_TALLY, INCIDENT_TALLY, CODE_TALLY, EVENT_TALLY, AUDIT_TALLY, MESSAGE_TALLY, DELIVERY_TALLY];

/** How long the folder rests when it has caught up (what is settled meanwhile is counted from the table until then). */
export const FOLD_IDLE_MS = 2000;
/** How long it yields between batches while catching up (an upgrade's backlog): the write path gets the database in between. */
const FOLD_YIELD_MS = 20;

/** One pass over the tables; `more` when some table had a full batch (more is waiting). */
export async function foldPass(db: Db, tables: readonly TallySpec[] = TALLIED_TABLES): Promise<{ folded: number; more: boolean }> {
  let folded = 0;
  let more = false;
  for (const spec of tables) {
    const n = await foldTallies(db, spec);
    folded += n;
    if (n >= FOLD_BATCH) more = true;
  }
  return { folded, more };
}

/** Folds until nothing settled is left untallied (tests, the bench's year, an upgrade's backlog). */
export async function foldAll(db: Db, tables: readonly TallySpec[] = TALLIED_TABLES): Promise<number> {
  let total = 0;
  for (;;) {
    const { folded, more } = await foldPass(db, tables);
    total += folded;
    if (!more) return total;
  }
}

/**
 * The background fold (server/db/tallies.ts) as a job of the runner: each table's settled rows
 * into its tallies, a small batch per transaction, as long as there is a backlog (a pass every
 * FOLD_YIELD_MS), then every FOLD_IDLE_MS. Every host runs it; on PostgreSQL one host folds a
 * table at a time and the others skip it.
 */
export function tallyFoldJob(db: Db, options: { timed: boolean }): Job<{ folded: number; more: boolean }> {
  return {
    name: 'fold-tallies',
    everyMs: FOLD_IDLE_MS,
    timed: options.timed,
    runOnce: () => foldPass(db),
    nextInMs: ({ more }) => (more ? FOLD_YIELD_MS : FOLD_IDLE_MS),
    failure: 'folding tallies failed; counts stay exact (the rows are counted from their table) and the next pass retries',
  };
}
