import type { KioskDb } from '../database.ts';
import { pruneDecisions } from '../gate/decisions-store.ts';

/** How long the kiosk keeps what is settled: its journal, closed visits, final codes. */
export const KIOSK_RETENTION_DAYS = 30;

/**
 * Deletes what the kiosk no longer needs and should not keep (visitor names and phones): settled
 * operations and their decisions, visits that ended, dismissed attention items, and codes
 * that are final and past their validity, all older than the cut-off. Nothing pending, inside or
 * open is touched. One transaction.
 */
export function pruneKioskJournal(db: KioskDb, before: string): number {
  const beforeMs = Date.parse(before);
  let deleted = 0;
  db.transaction(() => {
    const pendingVisits = `SELECT visit_id FROM outbox WHERE state = 'pending' AND visit_id IS NOT NULL`;
    deleted += db.prepare(`DELETE FROM outbox WHERE state <> 'pending' AND settled_at < ?`).run(before).changes;
    deleted += pruneDecisions(db, before);
    deleted += db
      .prepare(`DELETE FROM visits WHERE state <> 'inside' AND COALESCE(checked_out_at, checked_in_at) < ? AND visit_id NOT IN (${pendingVisits})`)
      .run(before).changes;
    deleted += db.prepare(`DELETE FROM attention WHERE dismissed_at IS NOT NULL AND dismissed_at < ?`).run(before).changes;
    deleted += db.prepare(`DELETE FROM codes WHERE status <> 'active' AND local_uses = 0 AND valid_until_ms < ?`).run(beforeMs).changes;
  })();
  return deleted;
}
