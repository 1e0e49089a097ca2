import { pageAndCount, type ListOrder, type PageRequest } from '../db/paged.ts';
import type { Executor, KioskAuthorityRow, KioskRow, Tenant } from '../db/schema.ts';
import { whereSiteReached, whereTenant } from '../db/tenant.ts';

/** The tenant's kiosks within the caller's sites (a key or person limited to sites sees only theirs), perhaps of one site. */
const scoped = (db: Executor, tenant: Tenant, siteId?: string) => db.selectFrom('kiosks').where(whereTenant(tenant)).where(whereSiteReached(tenant, 'organization', { siteId }));

export async function findKiosk(db: Executor, tenant: Tenant, kioskId: string): Promise<KioskRow | undefined> {
  return scoped(db, tenant).selectAll().where('kiosk_id', '=', kioskId).executeTakeFirst();
}

/**
 * The tenant's kiosk of this id at whichever site it stands, for the heartbeat that would make or
 * move it: the caller's reach is then checked against the site it has (kiosks/service.ts).
 */
export async function findKioskAtAnySite(db: Executor, tenant: Tenant, kioskId: string): Promise<Pick<KioskRow, 'site_id'> | undefined> {
  return db.selectFrom('kiosks').select('site_id').where(whereTenant(tenant)).where('kiosk_id', '=', kioskId).executeTakeFirst();
}

/** What a heartbeat sets: the kiosk's report and when it was heard. */
export type HeartbeatColumns = Pick<
  KioskRow,
  'entry_point' | 'app_version' | 'queued_operations' | 'oldest_queued_at' | 'last_sync_at' | 'needs_attention' | 'clock' | 'clock_skew_ds' | 'last_seen_at' | 'updated_at' | 'site_id'
>;

/**
 * Ends the outage the sweep reported, if one is open: answers when it began (its `offline_since`),
 * or undefined when there was none. A conditional UPDATE, so of two heartbeats arriving together
 * one reports the return; on PostgreSQL it also holds the row, so a sweep claiming it at that
 * moment waits and then finds it heard from.
 */
export async function endOutage(trx: Executor, tenant: Tenant, kioskId: string, at: string): Promise<string | undefined> {
  const before = await scoped(trx, tenant).select('offline_since').where('kiosk_id', '=', kioskId).where('offline_since', 'is not', null).executeTakeFirst();
  if (!before?.offline_since) return undefined;
  const result = await trx
    .updateTable('kiosks')
    .set({ offline_since: null, updated_at: at })
    .where(whereTenant(tenant))
    .where('kiosk_id', '=', kioskId)
    .where('offline_since', '=', before.offline_since)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1 ? before.offline_since : undefined;
}

/** The kiosk's first heartbeat makes its row; later ones update it. Name, retirement and outage are left alone. */
export async function upsertHeartbeat(trx: Executor, tenant: Tenant, kioskId: string, columns: HeartbeatColumns): Promise<void> {
  await trx
    .insertInto('kiosks')
    .values({
      organization_id: tenant.organizationId,
      environment: tenant.environment,
      kiosk_id: kioskId,
      name: null,
      ...columns,
      offline_since: null,
      first_seen_at: columns.last_seen_at,
      retired_at: null,
    })
    .onConflict((oc) => oc.columns(['organization_id', 'environment', 'kiosk_id']).doUpdateSet(columns))
    .execute();
}

export async function updateKiosk(db: Executor, tenant: Tenant, kioskId: string, changes: Partial<Pick<KioskRow, 'name' | 'retired_at' | 'offline_since' | 'updated_at'>>): Promise<boolean> {
  const result = await db.updateTable('kiosks').set(changes).where(whereTenant(tenant)).where(whereSiteReached(tenant, 'organization')).where('kiosk_id', '=', kioskId).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Retires an active kiosk; false when it is retired already. */
export async function retireKiosk(db: Executor, tenant: Tenant, kioskId: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('kiosks')
    .set({ retired_at: at, offline_since: null, updated_at: at })
    .where(whereTenant(tenant))
    .where(whereSiteReached(tenant, 'organization'))
    .where('kiosk_id', '=', kioskId)
    .where('retired_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export interface KioskFilter {
  /** Heard from at or after this instant: online (with `status`). */
  onlineSince: string;
  status?: 'online' | 'offline' | 'retired';
  siteId?: string;
  entryPoint?: string;
  entryPoints?: readonly string[];
}

function filtered(db: Executor, tenant: Tenant, filter: KioskFilter) {
  let base = scoped(db, tenant, filter.siteId);
  if (filter.status === 'retired') base = base.where('retired_at', 'is not', null);
  if (filter.status === 'online') base = base.where('retired_at', 'is', null).where('last_seen_at', '>', filter.onlineSince);
  if (filter.status === 'offline') base = base.where('retired_at', 'is', null).where('last_seen_at', '<=', filter.onlineSince);
  if (filter.entryPoint) base = base.where('entry_point', '=', filter.entryPoint);
  if (filter.entryPoints) base = base.where('entry_point', 'in', filter.entryPoints.length ? filter.entryPoints : ['']);
  return base;
}

/** Newest first; the cursor seeks the (tenant, first_seen_at) index. */
const KIOSKS_ORDER: ListOrder = { name: 'kiosks', kind: 'keyset', column: 'first_seen_at', id: 'kiosk_id', direction: 'desc' };

export async function listKioskRows(db: Executor, tenant: Tenant, filter: KioskFilter, page: PageRequest) {
  const base = filtered(db, tenant, filter);
  return pageAndCount(base.selectAll(), KIOSKS_ORDER, page);
}

/** Every kiosk of the tenant in service (not retired), optionally at these entry points. */
export async function activeKioskRows(db: Executor, tenant: Tenant, entryPoints?: readonly string[], siteId?: string): Promise<KioskRow[]> {
  let base = scoped(db, tenant, siteId).where('retired_at', 'is', null);
  if (entryPoints) base = base.where('entry_point', 'in', entryPoints.length ? entryPoints : ['']);
  return base.selectAll().orderBy('entry_point').orderBy('kiosk_id').execute();
}

/** Kiosks in service, of every tenant, last heard from at or before `before` and not yet reported offline. */
export async function silentKioskRows(db: Executor, before: string, limit: number): Promise<KioskRow[]> {
  return db
    .selectFrom('kiosks')
    .selectAll()
    .where('last_seen_at', '<=', before)
    .where('offline_since', 'is', null)
    .where('retired_at', 'is', null)
    .orderBy('last_seen_at')
    .limit(limit)
    .execute();
}

/**
 * The sweep's claim on one outage: sets `offline_since` only if the row is still as the sweep
 * read it (not heard from since, not claimed, not retired). Exactly one host's UPDATE changes
 * the row, and that host raises `kiosk.offline`.
 */
export async function claimOutage(trx: Executor, row: Pick<KioskRow, 'organization_id' | 'environment' | 'kiosk_id' | 'last_seen_at'>, at: string): Promise<boolean> {
  const result = await trx
    .updateTable('kiosks')
    .set({ offline_since: at, updated_at: at })
    .where('organization_id', '=', row.organization_id)
    .where('environment', '=', row.environment)
    .where('kiosk_id', '=', row.kiosk_id)
    .where('last_seen_at', '=', row.last_seen_at)
    .where('offline_since', 'is', null)
    .where('retired_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The site's kiosk authority in the tenant's environment, if one was made. */
export async function findKioskAuthority(db: Executor, tenant: Tenant, siteId: string): Promise<KioskAuthorityRow | undefined> {
  return db.selectFrom('kiosk_authorities').selectAll().where(whereTenant(tenant)).where('site_id', '=', siteId).executeTakeFirst();
}

/** False when another request made the site's authority meanwhile (that one stands). */
export async function insertKioskAuthority(db: Executor, row: KioskAuthorityRow): Promise<boolean> {
  const result = await db
    .insertInto('kiosk_authorities')
    .values(row)
    .onConflict((oc) => oc.columns(['organization_id', 'environment', 'site_id']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
}

/** Binds the kiosk's public key (or replaces it) and records the certificate's time; false when the kiosk is gone, retired or beyond the caller's sites. */
export async function recordCertificate(db: Executor, tenant: Tenant, kioskId: string, columns: { public_key: string; certified_at: string; certificate_expires_at: string }): Promise<boolean> {
  const result = await db
    .updateTable('kiosks')
    .set({ ...columns, updated_at: columns.certified_at })
    .where(whereTenant(tenant))
    .where(whereSiteReached(tenant, 'organization'))
    .where('kiosk_id', '=', kioskId)
    .where('retired_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
