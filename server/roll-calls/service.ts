import type { Page } from '../../shared/schemas/common.ts';
import type { RollCall } from '../../shared/schemas/roll-calls.ts';
import { visitorsOnSite } from '../access-logs/service.ts';
import type { AuthContext } from '../auth/context.ts';
import { inTransaction, type Executor, type RollCallEntryRow, type RollCallRow, type Tenant } from '../db/schema.ts';
import { notFound } from '../http/errors.ts';
import type { PageRequest } from '../db/paged.ts';
import { toPage } from '../http/pagination.ts';
import { newId } from '../ids.ts';
import { defaultSiteFor, placeNamedIn } from '../sites/service.ts';
import { everyNameOf } from '../sites/gates.ts';
import { kiosksInService, type KioskTimes } from '../kiosks/service.ts';
import { entryCounts, eraseEntryVisitor, findRollCall, findRollCallEntry, insertRollCall, listRollCallRows, markEntry, rollCallEntries } from './store.ts';

type Actor = AuthContext['actor'];
type Warning = RollCall['warnings'][number];
type Entry = RollCall['entries'][number];
export type RollCallSummary = Omit<RollCall, 'entries'>;

const actorOf = (type: string | null, id: string | null, label: string | null) =>
  type && id && label !== null ? { type: type as Actor['type'], id, label } : null;

function rowToEntry(row: RollCallEntryRow): Entry {
  return {
    log_id: row.log_id,
    visitor_name: row.visitor_name,
    visitor_phone: row.visitor_phone,
    entry_point: row.entry_point,
    checked_in_at: row.checked_in_at,
    accounted_for: row.accounted_for === 1,
    accounted_by: row.accounted_for === 1 ? actorOf(row.accounted_by_type, row.accounted_by_id, row.accounted_by_label) : null,
    accounted_at: row.accounted_for === 1 ? row.accounted_at : null,
  };
}

function rowToSummary(row: RollCallRow, counts: { total: number; accounted: number }): RollCallSummary {
  return {
    roll_call_id: row.roll_call_id,
    entry_points: row.entry_points === null ? null : (JSON.parse(row.entry_points) as string[]),
    site_id: row.site_id ?? null,
    created_at: row.created_at,
    created_by: actorOf(row.created_by_type, row.created_by_id, row.created_by_label)!,
    total: counts.total,
    accounted_for: counts.accounted,
    warnings: JSON.parse(row.warnings) as Warning[],
  };
}

/**
 * Takes a roll call: everyone on site now (checked in, not out), at the entry points asked for
 * or all, each with their phone, and the gates that may have left the list incomplete: a kiosk
 * in service there that was offline, or said in its last heartbeat that operations were waiting
 * to reach the server (visitors it let in or out that the server does not know of yet). One
 * transaction: the list is the visits as one moment saw them.
 */
export async function takeRollCall(
  db: Executor,
  times: KioskTimes,
  tenant: Tenant,
  actor: Actor,
  entryPoints?: readonly string[],
  siteId?: string,
): Promise<RollCall> {
  const at = times.clock.now().toISOString();
  const rollCallId = newId('rcl', times.clock.now());
  // A caller limited to sites takes a roll call of one of them; a roll call of every site is for those who reach them all.
  const site = siteId === undefined ? (tenant.sites ? await defaultSiteFor(db, tenant) : undefined) : (await placeNamedIn(db, tenant, { site_id: siteId }))!.siteId;
  // A gate asked for by its name now also finds what its kiosk recorded under a name it had before (issue #48).
  const names = entryPoints && (await everyNameOf(db, tenant, entryPoints, site));
  return inTransaction(db, async (trx) => {
    const [visitors, kiosks] = [await visitorsOnSite(trx, tenant, names, site), await kiosksInService(trx, times, tenant, names, site)];
    const warnings: Warning[] = [];
    for (const kiosk of kiosks) {
      const about = {
        kiosk_id: kiosk.kiosk_id,
        name: kiosk.name,
        entry_point: kiosk.entry_point,
        last_seen_at: kiosk.last_seen_at,
        queued_operations: kiosk.queued_operations,
        oldest_queued_at: kiosk.oldest_queued_at,
      };
      if (kiosk.status === 'offline') warnings.push({ ...about, reason: 'offline' });
      if (kiosk.queued_operations > 0) warnings.push({ ...about, reason: 'queued_operations' });
    }
    const row: RollCallRow = {
      roll_call_id: rollCallId,
      organization_id: tenant.organizationId,
      environment: tenant.environment,
      entry_points: entryPoints ? JSON.stringify(entryPoints) : null,
      site_id: site ?? null,
      warnings: JSON.stringify(warnings),
      created_by_type: actor.type,
      created_by_id: actor.id,
      created_by_label: actor.label,
      created_at: at,
    };
    const entries: RollCallEntryRow[] = visitors.map((visitor) => ({
      roll_call_id: rollCallId,
      ...visitor,
      accounted_for: 0,
      accounted_by_type: null,
      accounted_by_id: null,
      accounted_by_label: null,
      accounted_at: null,
    }));
    await insertRollCall(trx, row, entries);
    return { ...rowToSummary(row, { total: entries.length, accounted: 0 }), entries: entries.map(rowToEntry) };
  });
}

export async function getRollCall(db: Executor, tenant: Tenant, rollCallId: string): Promise<RollCall> {
  const row = await findRollCall(db, tenant, rollCallId);
  if (!row) throw notFound('Roll call');
  const entries = (await rollCallEntries(db, rollCallId)).map(rowToEntry);
  return { ...rowToSummary(row, { total: entries.length, accounted: entries.filter((entry) => entry.accounted_for).length }), entries };
}

/** The tenant's roll calls, newest first, without their entries. */
export async function listRollCalls(db: Executor, tenant: Tenant, query: PageRequest & { site_id?: string }): Promise<Page<RollCallSummary>> {
  const paged = await listRollCallRows(db, tenant, query, query.site_id);
  const counts = await entryCounts(
    db,
    paged.rows.map((row) => row.roll_call_id),
  );
  return toPage(
    paged.rows.map((row) => rowToSummary(row, counts.get(row.roll_call_id) ?? { total: 0, accounted: 0 })),
    paged.total,
    paged,
    query.limit,
  );
}

/**
 * Ticks (or unticks) one person: who did it and when are recorded on the entry, the state
 * everyone working the roll call reads. The last change wins.
 */
export async function markAccountedFor(
  db: Executor,
  times: Pick<KioskTimes, 'clock'>,
  tenant: Tenant,
  actor: Actor,
  rollCallId: string,
  logId: string,
  accountedFor: boolean,
): Promise<{ entry: Entry; roll_call: RollCallSummary }> {
  const row = await findRollCall(db, tenant, rollCallId);
  if (!row) throw notFound('Roll call');
  const at = times.clock.now().toISOString();
  const changed = await markEntry(db, rollCallId, logId, {
    accounted_for: accountedFor ? 1 : 0,
    accounted_by_type: accountedFor ? actor.type : null,
    accounted_by_id: accountedFor ? actor.id : null,
    accounted_by_label: accountedFor ? actor.label : null,
    accounted_at: accountedFor ? at : null,
  });
  if (!changed) throw notFound('Roll call entry');
  const entry = rowToEntry((await findRollCallEntry(db, rollCallId, logId))!);
  const counts = (await entryCounts(db, [rollCallId])).get(rollCallId) ?? { total: 0, accounted: 0 };
  return { entry, roll_call: rowToSummary(row, counts) };
}

/** Called when a visit is erased under a retention policy (access-logs/policies.ts). */
export async function eraseVisitorFromRollCalls(trx: Executor, logId: string): Promise<void> {
  await eraseEntryVisitor(trx, logId);
}
