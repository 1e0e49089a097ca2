import type { AccessLog, AdmittedOffline } from '../../shared/schemas/access.ts';
import type { Page } from '../../shared/schemas/common.ts';
import type { Clock } from '../clock.ts';
import { inTransaction, type AccessLogRow, type Executor, type Tenant } from '../db/schema.ts';
import { appendEvent, appendEvents, type EventDeps, type NewEvent } from '../events/service.ts';
import { conflict, notFound } from '../http/errors.ts';
import type { PageRequest } from '../db/paged.ts';
import { toPage, utcInstant } from '../http/pagination.ts';
import { newId } from '../ids.ts';
import { placeFor } from '../sites/service.ts';
import { everyNameOf, gateResolver } from '../sites/gates.ts';
import { durationMinutes, rowToAccessLog } from './access-log.ts';
import { happenedAt } from './replay-window.ts';
import {
  closeVisit,
  countAccessLogs,
  countOpenVisits,
  findAccessLog,
  insertAccessLog,
  listAccessLogRows,
  searchAccessLogRows,
  openVisitRows,
  openVisitOfCodeAt,
  openVisitRowsAt,
  visitTallies,
} from './store.ts';

export interface NewVisit {
  codeId: string | null;
  method: 'code' | 'walk_in';
  visitorName: string | null;
  visitorPhone: string | null;
  entryPoint?: string | null;
  /** The site the visit happens at (issue #34). */
  siteId: string;
  hostUserId?: string | null;
  notes?: string | null;
  recordedBy?: string | null;
  checkedInAt: Date;
  /** The guard let the visitor in although the code's holder was already inside (issue #49). */
  alreadyInsideOverride?: boolean;
  /** A gate let the visitor in offline with a code the server then refused: an excess use (issue #49). */
  admittedOffline?: AdmittedOffline;
}

/**
 * Checks a visitor in, with its `visitor.arrived` event, in the caller's transaction. `alsoReport`:
 * the caller's own events about the same change (a validation's `access_code.used`), written
 * after it in the same statement.
 */
export async function recordCheckIn(trx: Executor, deps: EventDeps, tenant: Tenant, visit: NewVisit, alsoReport: readonly NewEvent[] = []): Promise<AccessLog> {
  const { clock } = deps;
  const now = clock.now().toISOString();
  const row: AccessLogRow = {
    log_id: newId('log', clock.now()),
    organization_id: tenant.organizationId,
    environment: tenant.environment,
    code_id: visit.codeId,
    method: visit.method,
    visitor_name: visit.visitorName,
    visitor_phone: visit.visitorPhone,
    entry_point: visit.entryPoint ?? null,
    host_user_id: visit.hostUserId ?? null,
    notes: visit.notes ?? null,
    status: 'checked_in',
    checked_in_at: visit.checkedInAt.toISOString(),
    checked_out_at: null,
    checkout_notes: null,
    recorded_by: visit.recordedBy ?? null,
    auto_checked_out: 0,
    created_at: now,
    updated_at: now,
    erased_at: null,
    site_id: visit.siteId,
    already_inside_override: visit.alreadyInsideOverride ? 1 : 0,
    admitted_offline: visit.admittedOffline ? JSON.stringify(visit.admittedOffline) : null,
  };
  await insertAccessLog(trx, row);
  const log = rowToAccessLog(row, clock.now());
  // An excess use is its own event too, never an access_code.* one: the code's own events stay the server's decisions.
  const excess: NewEvent[] = visit.admittedOffline ? [{ ...tenant, type: 'visitor.excess_use', resourceId: row.log_id, data: log }] : [];
  await appendEvents(trx, deps, [{ ...tenant, type: 'visitor.arrived', resourceId: row.log_id, data: log }, ...excess, ...alsoReport]);
  return log;
}

/** The visit the holder of a code had open at the site at `at`, if any: what holds a validation asking `already_inside: hold`. */
export function openVisitOfCode(db: Executor, tenant: Tenant, codeId: string, siteId: string, at: Date): Promise<AccessLogRow | undefined> {
  return openVisitOfCodeAt(db, tenant, codeId, siteId, at.toISOString());
}

export interface WalkIn {
  visitor_name: string;
  visitor_phone: string;
  entry_point?: string;
  site_id?: string;
  host_user_id?: string;
  notes?: string;
  recorded_by?: string;
  checked_in_at?: string;
  admitted_offline?: AdmittedOffline;
}

export async function checkInWalkIn(db: Executor, deps: EventDeps, tenant: Tenant, input: WalkIn): Promise<AccessLog> {
  const checkedInAt = happenedAt(deps.clock, input.checked_in_at, 'checked_in_at');
  // The gate's site as named, else the default site: where an old caller's visits always were.
  const siteId = (await placeFor(db, tenant, { site_id: input.site_id })).siteId;
  return inTransaction(db, (trx) =>
    recordCheckIn(trx, deps, tenant, {
      codeId: null,
      method: 'walk_in',
      visitorName: input.visitor_name,
      visitorPhone: input.visitor_phone,
      entryPoint: input.entry_point,
      siteId,
      hostUserId: input.host_user_id,
      notes: input.notes,
      recordedBy: input.recorded_by,
      checkedInAt,
      admittedOffline: input.admitted_offline,
    }),
  );
}

export interface Checkout {
  checkout_notes?: string;
  recorded_by?: string;
  checked_out_at?: string;
}

/** Closes a visit, with its `visitor.departed` event. Already checked out: 409. */
export async function checkOutVisitor(db: Executor, deps: EventDeps, tenant: Tenant, logId: string, input: Checkout): Promise<AccessLog> {
  const { clock } = deps;
  const claimed = happenedAt(clock, input.checked_out_at, 'checked_out_at');
  return inTransaction(db, async (trx) => {
    const row = await findAccessLog(trx, tenant, logId);
    if (!row) throw notFound('Access log');
    if (row.status === 'checked_out') throw conflict(`Visitor already checked out at ${row.checked_out_at}`);
    // An offline checkout can not be earlier than the check-in it closes.
    const checkedOutAt = claimed.getTime() < Date.parse(row.checked_in_at) ? new Date(row.checked_in_at) : claimed;
    const closed = await closeVisit(trx, logId, {
      checked_out_at: checkedOutAt.toISOString(),
      checkout_notes: input.checkout_notes ?? null,
      recorded_by: input.recorded_by ?? row.recorded_by,
      updated_at: clock.now().toISOString(),
    });
    if (!closed) throw conflict('Visitor already checked out');
    const log = rowToAccessLog((await findAccessLog(trx, tenant, logId))!, clock.now());
    await appendEvent(trx, deps, { ...tenant, type: 'visitor.departed', resourceId: logId, data: log });
    return log;
  });
}

export async function getAccessLog(db: Executor, clock: Clock, tenant: Tenant, logId: string): Promise<AccessLog> {
  const row = await findAccessLog(db, tenant, logId);
  if (!row) throw notFound('Access log');
  return rowToAccessLog(row, clock.now());
}

export interface LogListQuery extends PageRequest {
  site_id?: string;
  status?: string;
  visitor_phone?: string;
  entry_point?: string;
  search?: string;
  from_date?: string;
  to_date?: string;
}

/** Visits, newest check-in first. The window filters on check-in time, a visit's creation. */
export async function listAccessLogs(db: Executor, clock: Clock, tenant: Tenant, query: LogListQuery): Promise<Page<AccessLog>> {
  const filter = {
    siteId: query.site_id,
    status: query.status,
    visitorPhone: query.visitor_phone,
    entryPoint: query.entry_point === undefined ? undefined : await everyNameOf(db, tenant, [query.entry_point], query.site_id),
    search: query.search,
    checkedInFrom: utcInstant(query.from_date),
    checkedInBefore: utcInstant(query.to_date),
  };
  const [paged, total] =
    filter.search ? await searchAccessLogRows(db, tenant, filter, query) : await Promise.all([listAccessLogRows(db, tenant, filter, query), countAccessLogs(db, tenant, filter)]);
  const now = clock.now();
  return toPage(
    paged.rows.map((row) => rowToAccessLog(row, now)),
    total,
    paged,
    query.limit,
  );
}

export async function currentVisitors(
  db: Executor,
  clock: Clock,
  tenant: Tenant,
  filter: { entry_point?: string; search?: string },
) {
  const entryPoint = filter.entry_point === undefined ? undefined : await everyNameOf(db, tenant, [filter.entry_point]);
  const rows = await openVisitRows(db, tenant, { entryPoint, search: filter.search });
  const now = clock.now();
  const visitors = rows.map((row) => ({
    log_id: row.log_id,
    code_id: row.code_id,
    visitor_name: row.visitor_name,
    visitor_phone: row.visitor_phone,
    entry_point: row.entry_point,
    host_user_id: row.host_user_id,
    checked_in_at: row.checked_in_at,
    duration_minutes: durationMinutes(row.checked_in_at, now),
    already_inside_override: Boolean(row.already_inside_override),
    admitted_offline: row.admitted_offline ? (JSON.parse(row.admitted_offline) as AdmittedOffline) : null,
  }));
  return { visitors, count: visitors.length };
}

/**
 * Everyone on the premises (checked in, not out), at these entry points or all: a roll call's
 * snapshot. In the caller's transaction, so the snapshot and what is made of it agree.
 */
export async function visitorsOnSite(db: Executor, tenant: Tenant, entryPoints?: readonly string[], siteId?: string) {
  return (await openVisitRowsAt(db, tenant, entryPoints, siteId)).map((row) => ({
    log_id: row.log_id,
    visitor_name: row.visitor_name,
    visitor_phone: row.visitor_phone,
    entry_point: row.entry_point,
    checked_in_at: row.checked_in_at,
  }));
}

export async function accessLogStats(db: Executor, tenant: Tenant, window: { from_date?: string; to_date?: string }) {
  const [groups, onPremises] = await Promise.all([visitTallies(db, tenant, utcInstant(window.from_date), utcInstant(window.to_date)), countOpenVisits(db, tenant)]);
  const sum = (keep: (group: (typeof groups)[number]) => boolean) => groups.filter(keep).reduce((total, group) => total + group.n, 0);
  const checkedOut = groups.filter((group) => group.status === 'checked_out');
  const completed = checkedOut.reduce((total, group) => total + group.n, 0);
  const totalMinutes = checkedOut.reduce((total, group) => total + group.sums.minutes!, 0);
  // By gate, not by the text each visit recorded: a gate's former names count as the gate (issue #48).
  const gateOf = await gateResolver(db, tenant);
  const byEntryPoint = new Map<string, { entry_point: string | null; entry_point_id: string | null; check_ins: number }>();
  for (const group of groups) {
    const text = group.entry_point ?? null;
    const gate = gateOf(group.site_id ?? null, text);
    const key = gate ? `gate ${gate.entry_point_id}` : `text ${JSON.stringify(text)}`;
    const row = byEntryPoint.get(key) ?? { entry_point: gate?.name ?? text, entry_point_id: gate?.entry_point_id ?? null, check_ins: 0 };
    row.check_ins += group.n;
    byEntryPoint.set(key, row);
  }
  return {
    total_check_ins: sum(() => true),
    total_check_outs: completed,
    currently_on_premises: onPremises,
    walk_ins: sum((group) => group.method === 'walk_in'),
    code_entries: sum((group) => group.method === 'code'),
    average_duration_minutes: completed ? Math.round((totalMinutes / completed) * 10) / 10 : null,
    by_entry_point: [...byEntryPoint.values()].sort((a, b) => b.check_ins - a.check_ins || String(a.entry_point).localeCompare(String(b.entry_point))),
  };
}

/** The visits' tallies (server/db/tallies.ts), folded in the background. */
export { VISIT_TALLY } from './store.ts';
