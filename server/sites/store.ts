import { sql } from 'kysely';
import { pageAndCount, type ListOrder, type PageRequest } from '../db/paged.ts';
import { isPostgres, type EntryPointNameRow, type EntryPointRow, type Executor, type SiteRow } from '../db/schema.ts';

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

/** The sites of these ids, whichever organization (a responder's offers span several), archived ones included. */
export async function sitesWithIds(db: Executor, siteIds: readonly string[]): Promise<SiteRow[]> {
  if (!siteIds.length) return [];
  return db.selectFrom('sites').selectAll().where('site_id', 'in', siteIds).execute();
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

/** Entry points of any of the organization's sites with this name, now or before a rename (issue #48). */
export async function entryPointsNamed(db: Executor, organizationId: string, name: string): Promise<Array<EntryPointRow & { former: boolean }>> {
  const [current, former] = await Promise.all([
    db.selectFrom('entry_points').selectAll().where('organization_id', '=', organizationId).where('name', '=', name).execute(),
    db
      .selectFrom('entry_point_names')
      .innerJoin('entry_points', 'entry_points.entry_point_id', 'entry_point_names.entry_point_id')
      .selectAll('entry_points')
      .where('entry_point_names.organization_id', '=', organizationId)
      .where('entry_point_names.name', '=', name)
      .execute(),
  ]);
  return [...current.map((row) => ({ ...row, former: false })), ...former.map((row) => ({ ...row, former: true }))];
}

/** Every name now or before of gates whose name, now or before, is one of `names` (the organization's, perhaps one site's). */
export async function gatesAnsweringTo(db: Executor, organizationId: string, names: readonly string[], siteId?: string): Promise<Array<{ entry_point_id: string; site_id: string; name: string }>> {
  if (!names.length) return [];
  let matched = db
    .selectFrom('entry_points')
    .select('entry_point_id')
    .where('organization_id', '=', organizationId)
    .where((eb) => eb.or([eb('name', 'in', names), eb('entry_point_id', 'in', eb.selectFrom('entry_point_names').select('entry_point_id').where('organization_id', '=', organizationId).where('name', 'in', names))]));
  if (siteId) matched = matched.where('site_id', '=', siteId);
  const ids = (await matched.execute()).map((row) => row.entry_point_id);
  if (!ids.length) return [];
  const [current, former] = await Promise.all([
    db.selectFrom('entry_points').select(['entry_point_id', 'site_id', 'name']).where('entry_point_id', 'in', ids).execute(),
    db.selectFrom('entry_point_names').select(['entry_point_id', 'site_id', 'name']).where('entry_point_id', 'in', ids).execute(),
  ]);
  return [...current, ...former];
}

export async function findEntryPointOfSite(db: Executor, siteId: string, entryPointId: string): Promise<EntryPointRow | undefined> {
  return db.selectFrom('entry_points').selectAll().where('site_id', '=', siteId).where('entry_point_id', '=', entryPointId).executeTakeFirst();
}

/** The organization's gates of these sites (all its gates when `siteIds` is null). */
export async function entryPointsOfOrganization(db: Executor, organizationId: string, siteIds: readonly string[] | null): Promise<EntryPointRow[]> {
  let query = db.selectFrom('entry_points').selectAll().where('organization_id', '=', organizationId);
  if (siteIds) query = siteIds.length ? query.where('site_id', 'in', siteIds) : query.where((eb) => eb.lit(false));
  return query.execute();
}

/** The former names of these gates, oldest first. */
export async function formerNamesOf(db: Executor, entryPointIds: readonly string[]): Promise<EntryPointNameRow[]> {
  if (!entryPointIds.length) return [];
  return db.selectFrom('entry_point_names').selectAll().where('entry_point_id', 'in', entryPointIds).orderBy('created_at').orderBy('name').execute();
}

export async function renameEntryPoint(db: Executor, entryPointId: string, name: string): Promise<void> {
  await db.updateTable('entry_points').set({ name }).where('entry_point_id', '=', entryPointId).execute();
}

/** Keeps a gate's old name, so a kiosk that still sends it reaches the gate. */
export async function insertFormerName(db: Executor, row: EntryPointNameRow): Promise<void> {
  await db.insertInto('entry_point_names').values(row).execute();
}

/** A gate given this name takes it over: no other gate of the site answers to it as a former name. */
export async function releaseFormerName(db: Executor, siteId: string, name: string): Promise<void> {
  await db.deleteFrom('entry_point_names').where('site_id', '=', siteId).where('name', '=', name).execute();
}

export async function retireEntryPoint(db: Executor, entryPointId: string, at: string): Promise<void> {
  await db.updateTable('entry_points').set({ retired_at: at }).where('entry_point_id', '=', entryPointId).execute();
}

/** Removes a gate and its former names. */
export async function deleteEntryPoint(db: Executor, entryPointId: string): Promise<void> {
  await db.deleteFrom('entry_point_names').where('entry_point_id', '=', entryPointId).execute();
  await db.deleteFrom('entry_points').where('entry_point_id', '=', entryPointId).execute();
}

/**
 * Changes of the organization's default site, one at a time to the end of the transaction (an
 * advisory lock on PostgreSQL; SQLite has one writer): two at once would each clear the old
 * default and set their own, and the second would break the one-default index.
 */
export async function lockDefaultSite(trx: Executor, organizationId: string): Promise<void> {
  if (isPostgres(trx)) await sql`select pg_advisory_xact_lock(hashtextextended(${`default-site:${organizationId}`}, 0))`.execute(trx);
}

/** The organization has no default site until the caller sets one, in the same transaction (one default per organization: migration 0044). */
export async function clearDefaultSite(db: Executor, organizationId: string, at: string): Promise<void> {
  await db.updateTable('sites').set({ is_default: 0, updated_at: at }).where('organization_id', '=', organizationId).where('is_default', '=', 1).execute();
}

/** Registers an entry point unless its site has one of that name already. */
export async function insertEntryPointIfNew(db: Executor, row: EntryPointRow): Promise<void> {
  await db.insertInto('entry_points').values(row).onConflict((oc) => oc.columns(['site_id', 'name']).doNothing()).execute();
}

export async function findEntryPointByName(db: Executor, siteId: string, name: string): Promise<EntryPointRow | undefined> {
  return db.selectFrom('entry_points').selectAll().where('site_id', '=', siteId).where('name', '=', name).executeTakeFirst();
}
