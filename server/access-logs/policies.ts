import type { Clock } from '../clock.ts';
import { inTransaction, type Executor } from '../db/schema.ts';
import { eraseVisitorDataOfFinalCodes } from '../access-codes/service.ts';
import { appendEvent, scrubVisitorDataFromEvents, type EventDeps } from '../events/service.ts';
import { organizationsWithVisitorPolicies } from '../organizations/service.ts';
import { eraseVisitorFromRollCalls } from '../roll-calls/service.ts';
import { rowToAccessLog } from './access-log.ts';
import { closeVisit, closedVisitsToErase, eraseVisit, findAccessLog, openVisitsCheckedInBefore } from './store.ts';

const HOUR_MS = 60 * 60 * 1000;
const ENVIRONMENTS = ['live', 'sandbox'] as const;

/**
 * Auto-checkout: anyone still checked in N hours after arriving is checked out at
 * arrival + N hours, marked `auto_checked_out`, with a `visitor.departed` event. Each visit
 * once: closing is a compare-and-set on its status.
 */
export async function autoCheckOutOverdueVisitors(db: Executor, deps: EventDeps, batch = 500): Promise<number> {
  const { clock } = deps;
  let closed = 0;
  for (const org of await organizationsWithVisitorPolicies(db)) {
    const hours = org.auto_checkout_hours;
    if (hours === null) continue;
    const cutoff = new Date(clock.now().getTime() - hours * HOUR_MS).toISOString();
    for (const environment of ENVIRONMENTS) {
      const tenant = { organizationId: org.organization_id, environment };
      for (const visit of await openVisitsCheckedInBefore(db, tenant, cutoff, batch)) {
        await inTransaction(db, async (trx) => {
          const closedAt = new Date(Date.parse(visit.checked_in_at) + hours * HOUR_MS).toISOString();
          const done = await closeVisit(trx, visit.log_id, {
            checked_out_at: closedAt,
            checkout_notes: `Checked out automatically after ${hours} h on premises`,
            auto_checked_out: 1,
            updated_at: clock.now().toISOString(),
          });
          if (!done) return;
          const log = rowToAccessLog((await findAccessLog(trx, tenant, visit.log_id))!, clock.now());
          await appendEvent(trx, deps, { ...tenant, type: 'visitor.departed', resourceId: visit.log_id, data: log });
          closed++;
        });
      }
    }
  }
  return closed;
}

/**
 * Retention: names and phones of visits closed more than N days ago, and of final codes
 * (used, expired, revoked) last changed more than N days ago, are erased, in the rows and in
 * the event log's copies of them. Counts and times stay, so stats do not change. Erased codes
 * reach kiosks through the change feed.
 */
export async function eraseExpiredVisitorData(db: Executor, clock: Clock, batch = 1000): Promise<{ logs: number; codes: number }> {
  let logs = 0;
  let codes = 0;
  const at = clock.now().toISOString();
  for (const org of await organizationsWithVisitorPolicies(db)) {
    if (org.retention_days === null) continue;
    const cutoff = new Date(clock.now().getTime() - org.retention_days * 24 * HOUR_MS).toISOString();
    for (const logId of await closedVisitsToErase(db, org.organization_id, cutoff, batch)) {
      await inTransaction(db, async (trx) => {
        await eraseVisit(trx, logId, at);
        await scrubVisitorDataFromEvents(trx, logId);
        await eraseVisitorFromRollCalls(trx, logId);
      });
      logs++;
    }
    codes += await eraseVisitorDataOfFinalCodes(db, org.organization_id, cutoff, at, batch);
  }
  return { logs, codes };
}
