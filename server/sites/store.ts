import { pageAndCount, type ListOrder, type PageRequest } from '../db/paged.ts';
import type { EntryPointRow, Executor, SiteRow } from '../db/schema.ts';

/** An organization's sites and their entry points: this store owns those tables. */

export async function insertSite(db: Executor, row: SiteRow): Promise<void> {
  await db.insertInto('sites').values(row).execute();
}

export async function findSite(db: Executor, organizationId: string, siteId: string): Promise<SiteRow | undefined> {
  return db.selectFrom('sites').selectAll().where('organization_id', '=', organizationId).where('site_id', '=', siteId).executeTakeFirst();
}

/** The organization's default site (migration 0026, `createDefaultSite`): exactly one per organization. */
export async function findDefaultSite(db: Executor, organizationId: string): Promise<SiteRow | undefined> {
  return db.selectFrom('sites').selectAll().where('organization_id', '=', organizationId).where('is_default', '=', 1).executeTakeFirst();
}

export async function findEntryPoint(db: Executor, organizationId: string, entryPointId: string): Promise<EntryPointRow | undefined> {
  return db.selectFrom('entry_points').selectAll().where('organization_id', '=', organizationId).where('entry_point_id', '=', entryPointId).executeTakeFirst();
}

/** Those of `siteIds` that are the organization's active sites. */
export async function activeSitesAmong(db: Executor, organizationId: string, siteIds: readonly string[]): Promise<SiteRow[]> {
  if (!siteIds.length) return [];
  return db.selectFrom('sites').selectAll().where('organization_id', '=', organizationId).where('site_id', 'in', siteIds).where('archived_at', 'is', null).execute();
}

export async function findSiteByName(db: Executor, organizationId: string, name: string): Promise<SiteRow | undefined> {
  return db.selectFrom('sites').selectAll().where('organization_id', '=', organizationId).where('name', '=', name).executeTakeFirst();
}

export async function updateSite(db: Executor, siteId: string, changes: Partial<Omit<SiteRow, 'site_id' | 'organization_id'>>): Promise<void> {
  await db.updateTable('sites').set(changes).where('site_id', '=', siteId).execute();
}

/** The default site first, then by name: how a person looks for an estate (an organization has tens). */
const SITES_ORDER: ListOrder = { name: 'sites', kind: 'offset', apply: (query) => query.orderBy('is_default', 'desc').orderBy('name').orderBy('site_id') };

export async function listSites(
  db: Executor,
  organizationId: string,
  filter: { status?: 'active' | 'archived'; sites?: readonly string[] | null },
  page: PageRequest,
) {
  let base = db.selectFrom('sites').where('organization_id', '=', organizationId);
  if (filter.sites) base = filter.sites.length ? base.where('site_id', 'in', filter.sites) : base.where((eb) => eb.lit(false));
  if (filter.status === 'active') base = base.where('archived_at', 'is', null);
  if (filter.status === 'archived') base = base.where('archived_at', 'is not', null);
  return pageAndCount(base.selectAll(), SITES_ORDER, page);
}

export async function insertEntryPoints(db: Executor, rows: EntryPointRow[]): Promise<void> {
  if (rows.length) await db.insertInto('entry_points').values(rows).execute();
}

export async function entryPointsOf(db: Executor, siteIds: readonly string[]): Promise<EntryPointRow[]> {
  if (!siteIds.length) return [];
  return db.selectFrom('entry_points').selectAll().where('site_id', 'in', siteIds).orderBy('name').execute();
}

/** Entry points of any of the organization's sites with this name. */
export async function entryPointsNamed(db: Executor, organizationId: string, name: string): Promise<EntryPointRow[]> {
  return db.selectFrom('entry_points').selectAll().where('organization_id', '=', organizationId).where('name', '=', name).execute();
}

/** Registers an entry point unless its site has one of that name already. */
export async function insertEntryPointIfNew(db: Executor, row: EntryPointRow): Promise<void> {
  await db.insertInto('entry_points').values(row).onConflict((oc) => oc.columns(['site_id', 'name']).doNothing()).execute();
}

export async function findEntryPointByName(db: Executor, siteId: string, name: string): Promise<EntryPointRow | undefined> {
  return db.selectFrom('entry_points').selectAll().where('site_id', '=', siteId).where('name', '=', name).executeTakeFirst();
}
