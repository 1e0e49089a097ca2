import { pruneFinalCodes } from '../caches/codes.ts';
import type { KioskDb } from '../database.ts';
import { pruneDecisions } from '../gate/decisions-store.ts';
import { pruneEndedVisits } from '../gate/visits-store.ts';
import { pruneDismissedAttention, pruneSettledOperations } from './store.ts';
import { pruneFacts } from '../peers/store.ts';

/** How long the kiosk keeps what is settled: its journal, closed visits, final codes. */
export const KIOSK_RETENTION_DAYS = 30;

/**
 * Deletes what the kiosk no longer needs and should not keep (visitor names and phones): settled
 * operations and their decisions, visits that ended, dismissed attention items, and codes
 * that are final and past their validity, and the facts the site's gates shared, all older than the cut-off. Nothing pending, inside or
 * open is touched. Each room's store deletes its own rows; one transaction.
 */
export function pruneKioskJournal(db: KioskDb, before: string): number {
  let deleted = 0;
  db.transaction(() => {
    deleted += pruneSettledOperations(db, before);
    deleted += pruneDecisions(db, before);
    deleted += pruneEndedVisits(db, before);
    deleted += pruneDismissedAttention(db, before);
    deleted += pruneFinalCodes(db, Date.parse(before));
    // What the gates told each other (issue #49), except uses the server has not counted yet.
    deleted += pruneFacts(db, before);
  })();
  return deleted;
}
