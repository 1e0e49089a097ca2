import { expireDueAccessCodes } from './access-codes/service.ts';
import { autoCheckOutOverdueVisitors, eraseExpiredVisitorData } from './access-logs/policies.ts';
import { repeatable } from './db/retry.ts';
import type { Db } from './db/schema.ts';
import type { EventDeps } from './events/service.ts';
import type { Job } from './jobs/runner.ts';
import { purgeExpiredIdempotencyRecords } from './idempotency/middleware.ts';
import { reportSilentKiosks } from './kiosks/service.ts';
import { suspendExpiredLicences } from './responders/roster.ts';

export interface SweepReport {
  expiredCodes: number;
  autoCheckedOut: number;
  erasedLogs: number;
  erasedCodes: number;
  purgedIdempotencyRecords: number;
  kiosksOffline: number;
  /** Responders whose licence expired, suspended (issue #47). */
  expiredLicences: number;
}

export interface SweepSettings {
  /** KIOSK_OFFLINE_AFTER_S: a kiosk in service silent this long raises `kiosk.offline`. */
  kioskOfflineAfterS: number;
}

/**
 * The time-driven work: codes past their validity expire, overdue visitors are checked out,
 * personal data past retention is erased, old idempotency records go, kiosks gone silent are
 * reported offline, responders whose licence expired are suspended. Every step is a
 * compare-and-set per row, so hosts sweeping together do each thing once, and a sweep missed
 * while the server was down is done by the next one.
 */
export async function runSweeps(db: Db, deps: EventDeps, settings: SweepSettings): Promise<SweepReport> {
  // Each step is safe to repeat, so a dropped connection is retried on a fresh one at once.
  const expiredCodes = await repeatable(() => expireDueAccessCodes(db, deps));
  const autoCheckedOut = await repeatable(() => autoCheckOutOverdueVisitors(db, deps));
  const erased = await repeatable(() => eraseExpiredVisitorData(db, deps.clock));
  const purgedIdempotencyRecords = await repeatable(() => purgeExpiredIdempotencyRecords(db, deps.clock));
  const kiosksOffline = await repeatable(() => reportSilentKiosks(db, { ...deps, offlineAfterS: settings.kioskOfflineAfterS }));
  const expiredLicences = await repeatable(() => suspendExpiredLicences(db, deps.clock));
  return { expiredCodes, autoCheckedOut, erasedLogs: erased.logs, erasedCodes: erased.codes, purgedIdempotencyRecords, kiosksOffline, expiredLicences };
}

/** The sweeps as a job of the runner (server/jobs/runner.ts): every SWEEP_INTERVAL_S, one at a time. */
export function sweepJob(db: Db, deps: EventDeps, settings: SweepSettings, everyMs: number): Job<SweepReport> {
  return {
    name: 'sweeps',
    everyMs,
    runOnce: () => runSweeps(db, deps, settings),
    failure: 'sweep failed; the next one will retry',
    report(report, logger) {
      if (Object.values(report).some((n) => n > 0)) logger.info({ sweep: report }, 'sweep');
    },
  };
}
