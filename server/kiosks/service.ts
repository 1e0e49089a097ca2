import type { Kiosk, KioskHeartbeatRequest } from '../../shared/schemas/kiosks.ts';
import type { Page } from '../../shared/schemas/common.ts';
import { inTransaction, type Db, type Executor, type KioskRow, type Tenant } from '../db/schema.ts';
import { appendEvent, type EventDeps } from '../events/service.ts';
import { conflict, notFound } from '../http/errors.ts';
import type { PageRequest } from '../db/paged.ts';
import { toPage } from '../http/pagination.ts';
import { placeNamedIn, siteSummaryOf, type SiteSummary } from '../sites/service.ts';
import { gateOfKiosk, siteForGateName } from '../sites/gates.ts';
import { reachesSite } from '../db/tenant.ts';
import { activeKioskRows, claimOutage, endOutage, findKiosk, findKioskAtAnySite, listKioskRows, retireKiosk, silentKioskRows, updateKiosk, upsertHeartbeat } from './store.ts';

/**
 * When a kiosk last heard from at `lastSeenAt` counts as offline (KIOSK_OFFLINE_AFTER_S after it),
 * and what its events are written with.
 */
export interface KioskTimes extends EventDeps {
  offlineAfterS: number;
}

/** The instant after which a kiosk heard from is still online. */
const onlineSince = (times: KioskTimes) => new Date(times.clock.now().getTime() - times.offlineAfterS * 1000).toISOString();

export function rowToKiosk(row: KioskRow, times: KioskTimes): Kiosk {
  const status = row.retired_at !== null ? 'retired' : row.last_seen_at > onlineSince(times) ? 'online' : 'offline';
  return {
    kiosk_id: row.kiosk_id,
    name: row.name,
    status,
    entry_point: row.entry_point,
    app_version: row.app_version,
    queued_operations: row.queued_operations,
    oldest_queued_at: row.oldest_queued_at,
    last_sync_at: row.last_sync_at,
    needs_attention: row.needs_attention,
    clock: row.clock,
    clock_skew_seconds: row.clock_skew_ds === null ? null : row.clock_skew_ds / 10,
    last_seen_at: row.last_seen_at,
    offline_since: row.offline_since,
    first_seen_at: row.first_seen_at,
    retired_at: row.retired_at,
    site_id: row.site_id ?? null,
    certificate_expires_at: row.certificate_expires_at ?? null,
  };
}

/**
 * A kiosk's heartbeat: its first makes the kiosk, later ones update it; the server's receive
 * time is `last_seen_at`, and the kiosk's clock against it the skew. `replayed`: it waited in the
 * kiosk's queue (POST /kiosk/replay), so its clock was read before it was sent and says nothing
 * of the skew. The first heartbeat after `kiosk.offline` raises `kiosk.online`. A retired kiosk
 * stays retired: its heartbeat is recorded (an operator sees that a retired gate still runs)
 * and raises nothing. A kiosk that stands at a site beyond the caller's is a 404, as another
 * organization's is: a key of one site never moves, wakes or reports for another site's gate.
 */
export async function recordHeartbeat(
  db: Executor,
  times: KioskTimes,
  tenant: Tenant,
  kioskId: string,
  heartbeat: KioskHeartbeatRequest,
  options: { replayed?: boolean } = {},
): Promise<{ kiosk: Kiosk; site: SiteSummary | null }> {
  const now = times.clock.now();
  const at = now.toISOString();
  const skewDs = options.replayed ? null : Math.round((Date.parse(heartbeat.clock) - now.getTime()) / 100);
  // The site it was set up for (checked), else the one it has, else where its gate's name says (gateOfKiosk).
  const named = await placeNamedIn(db, tenant, { site_id: heartbeat.site_id });
  return inTransaction(db, async (trx) => {
    const known = await findKioskAtAnySite(trx, tenant, kioskId);
    if (known && !reachesSite(tenant.sites, known.site_id, 'organization')) throw notFound('Kiosk');
    const wasOfflineSince = await endOutage(trx, tenant, kioskId, at);
    // Its gate by any name it had: a kiosk set up before a rename is listed at the renamed gate (issue #48).
    const { siteId, entryPoint } = await gateOfKiosk(trx, times.clock, tenant, heartbeat.entry_point, named?.siteId ?? known?.site_id ?? undefined);
    await upsertHeartbeat(trx, tenant, kioskId, {
      site_id: siteId,
      entry_point: entryPoint,
      app_version: heartbeat.app_version,
      queued_operations: heartbeat.queued_operations,
      oldest_queued_at: heartbeat.oldest_queued_at,
      last_sync_at: heartbeat.last_sync_at,
      needs_attention: heartbeat.needs_attention,
      clock: heartbeat.clock,
      clock_skew_ds: skewDs,
      last_seen_at: at,
      updated_at: at,
    });
    const kiosk = rowToKiosk((await findKiosk(trx, tenant, kioskId))!, times);
    if (wasOfflineSince && kiosk.status !== 'retired') {
      await appendEvent(trx, times, { ...tenant, type: 'kiosk.online', resourceId: kioskId, data: { ...kiosk, was_offline_since: wasOfflineSince } });
    }
    return { kiosk, site: (await siteSummaryOf(trx, tenant.organizationId, siteId)) ?? null };
  });
}

/**
 * The site a kiosk stands at, for its SOS. A kiosk not heard from yet (its first act an SOS,
 * before any heartbeat) is placed by its gate's name, as its first heartbeat would place it.
 */
export async function siteOfKiosk(db: Executor, tenant: Tenant, kioskId: string, entryPoint: string | undefined): Promise<string | undefined> {
  const known = (await findKiosk(db, tenant, kioskId))?.site_id;
  if (known) return known;
  return entryPoint ? siteForGateName(db, tenant, entryPoint) : undefined;
}

export async function getKiosk(db: Executor, times: KioskTimes, tenant: Tenant, kioskId: string): Promise<Kiosk> {
  const row = await findKiosk(db, tenant, kioskId);
  if (!row) throw notFound('Kiosk');
  return rowToKiosk(row, times);
}

export interface KioskListQuery extends PageRequest {
  site_id?: string;
  status?: 'online' | 'offline' | 'retired';
  entry_point?: string;
}

/** The tenant's kiosks, the most recently installed first. */
export async function listKiosks(db: Executor, times: KioskTimes, tenant: Tenant, query: KioskListQuery): Promise<Page<Kiosk>> {
  const paged = await listKioskRows(db, tenant, { onlineSince: onlineSince(times), status: query.status, siteId: query.site_id, entryPoint: query.entry_point }, query);
  return toPage(
    paged.rows.map((row) => rowToKiosk(row, times)),
    paged.total,
    paged,
    query.limit,
  );
}

export async function renameKiosk(db: Executor, times: KioskTimes, tenant: Tenant, kioskId: string, name: string): Promise<Kiosk> {
  if (!(await updateKiosk(db, tenant, kioskId, { name, updated_at: times.clock.now().toISOString() }))) throw notFound('Kiosk');
  return getKiosk(db, times, tenant, kioskId);
}

/** Takes a kiosk out of service: it raises no offline alert from now on. Already retired: 409. */
export async function retire(db: Executor, times: KioskTimes, tenant: Tenant, kioskId: string): Promise<Kiosk> {
  const row = await findKiosk(db, tenant, kioskId);
  if (!row) throw notFound('Kiosk');
  if (!(await retireKiosk(db, tenant, kioskId, times.clock.now().toISOString()))) throw conflict('Kiosk is already retired');
  return getKiosk(db, times, tenant, kioskId);
}

/** The kiosks in service at these entry points (all when none are given), as the API shows them: for a roll call's warnings. */
export async function kiosksInService(db: Executor, times: KioskTimes, tenant: Tenant, entryPoints?: readonly string[], siteId?: string): Promise<Kiosk[]> {
  return (await activeKioskRows(db, tenant, entryPoints, siteId)).map((row) => rowToKiosk(row, times));
}

/**
 * The sweep: every kiosk in service not heard from for KIOSK_OFFLINE_AFTER_S raises
 * `kiosk.offline`, once per outage, whichever host sweeps: the claim (a conditional UPDATE) and
 * the event commit together, and only the host whose UPDATE changed the row writes the event.
 */
export async function reportSilentKiosks(db: Db, times: KioskTimes, batch = 500): Promise<number> {
  const at = times.clock.now().toISOString();
  let reported = 0;
  for (const row of await silentKioskRows(db, onlineSince(times), batch)) {
    const raised = await db.transaction().execute(async (trx) => {
      if (!(await claimOutage(trx, row, at))) return false;
      const tenant = { organizationId: row.organization_id, environment: row.environment };
      const kiosk = rowToKiosk({ ...row, offline_since: at, updated_at: at }, times);
      await appendEvent(trx, times, { ...tenant, type: 'kiosk.offline', resourceId: row.kiosk_id, data: kiosk });
      return true;
    });
    if (raised) reported++;
  }
  return reported;
}
