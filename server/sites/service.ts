import { callListView } from './call-list.ts';
import type { Page } from '../../shared/schemas/common.ts';
import type { CreateSiteRequest, EntryPoint, Site, UpdateSiteRequest } from '../../shared/schemas/sites.ts';
import type { Clock } from '../clock.ts';
import { inTransaction, type EntryPointNameRow, type EntryPointRow, type Executor, type SiteRow, type Tenant } from '../db/schema.ts';
import { reachesSite } from '../db/tenant.ts';
import { badRequest, conflict, notFound } from '../http/errors.ts';
import type { PageRequest } from '../db/paged.ts';
import { toPage } from '../http/pagination.ts';
import { newId } from '../ids.ts';
import * as store from './store.ts';

/** A gate as answered: with its former names (a kiosk that still sends one reaches it) and whether it is retired. */
export const rowToEntryPoint = (row: EntryPointRow, formerNames: readonly EntryPointNameRow[]): EntryPoint => ({
  entry_point_id: row.entry_point_id,
  site_id: row.site_id,
  name: row.name,
  former_names: formerNames.filter((former) => former.entry_point_id === row.entry_point_id).map((former) => former.name),
  retired_at: row.retired_at ?? null,
  created_at: row.created_at,
});

/** The gates of these sites as answered, each with its former names (two queries, whatever the number of gates). */
export async function entryPointViews(db: Executor, siteIds: readonly string[]): Promise<EntryPoint[]> {
  const rows = await store.entryPointsOf(db, siteIds);
  const former = await store.formerNamesOf(db, rows.map((row) => row.entry_point_id));
  return rows.map((row) => rowToEntryPoint(row, former));
}

function rowToSite(row: SiteRow, entryPoints: readonly EntryPoint[]): Site {
  return {
    site_id: row.site_id,
    name: row.name,
    address: row.address,
    location: row.latitude === null || row.longitude === null ? null : { latitude: Number(row.latitude), longitude: Number(row.longitude) },
    time_zone: row.time_zone,
    call_list: callListView(row.call_list),
    is_default: row.is_default === 1,
    entry_points: entryPoints.filter((entry) => entry.site_id === row.site_id),
    archived_at: row.archived_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** Names are unique in the organization: said before the database's own refusal, naming the field. */
async function assertNameFree(db: Executor, organizationId: string, name: string, except?: string): Promise<void> {
  const taken = await store.findSiteByName(db, organizationId, name);
  if (taken && taken.site_id !== except) throw conflict(`name: the organization already has a site named ${name}`);
}

function uniqueNames(names: readonly string[]): string[] {
  const seen = new Set<string>();
  for (const name of names) {
    if (seen.has(name)) throw conflict(`entry_points: ${name} is named twice; a gate's name is unique within its site`);
    seen.add(name);
  }
  return [...seen];
}

export const entryPointRows = (organizationId: string, siteId: string, names: readonly string[], at: Date): EntryPointRow[] =>
  names.map((name) => ({ entry_point_id: newId('ent', at), site_id: siteId, organization_id: organizationId, name, created_at: at.toISOString(), retired_at: null }));

/** The organization's first site, made with it (and, for organizations from before sites, by migration 0026). */
export async function createDefaultSite(trx: Executor, clock: Clock, organization: { organizationId: string; name: string }): Promise<void> {
  const now = clock.now();
  await store.insertSite(trx, {
    site_id: newId('site', now),
    organization_id: organization.organizationId,
    name: organization.name,
    address: null,
    latitude: null,
    longitude: null,
    time_zone: 'Africa/Lagos',
    call_list: '[]',
    is_default: 1,
    archived_at: null,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
  });
}

export async function createSite(db: Executor, clock: Clock, organizationId: string, input: CreateSiteRequest): Promise<Site> {
  return inTransaction(db, async (trx) => {
    await assertNameFree(trx, organizationId, input.name);
    const now = clock.now();
    const row: SiteRow = {
      site_id: newId('site', now),
      organization_id: organizationId,
      name: input.name,
      address: input.address ?? null,
      latitude: input.location?.latitude ?? null,
      longitude: input.location?.longitude ?? null,
      time_zone: input.time_zone,
      call_list: JSON.stringify(input.call_list),
      is_default: 0,
      archived_at: null,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    };
    await store.insertSite(trx, row);
    const entries = entryPointRows(organizationId, row.site_id, uniqueNames(input.entry_points), now);
    await store.insertEntryPoints(trx, entries);
    return rowToSite(row, entries.map((entry) => rowToEntryPoint(entry, [])));
  });
}

/** A caller of the sites routes: their organization and, when limited to sites, those sites (issue #34). */
export type SiteCaller = Pick<Tenant, 'organizationId' | 'sites'>;

/** A site the caller reaches: another organization's, or a site beyond a limited caller's, is a 404. */
export async function reachedSite(db: Executor, caller: SiteCaller, siteId: string): Promise<SiteRow> {
  const row = await store.findSite(db, caller.organizationId, siteId);
  if (!row || !reachesSite(caller.sites, row.site_id, 'organization')) throw notFound('Site');
  return row;
}

/** What a responder is told of an incident's estate: its name and the first number on its call list (the estate's own, to call on the way). */
export interface EstateForResponder {
  name: string;
  phone: string | null;
}

/** The estates of these sites, by site id, for the responder app's offers and assignments (issue #48). */
export async function estatesForResponders(db: Executor, siteIds: readonly (string | null)[]): Promise<Map<string, EstateForResponder>> {
  const ids = [...new Set(siteIds.filter((id): id is string => id !== null))];
  const rows = await store.sitesWithIds(db, ids);
  return new Map(rows.map((row) => [row.site_id, { name: row.name, phone: (JSON.parse(row.call_list) as Site['call_list'])[0]?.phone ?? null }]));
}

export async function getSite(db: Executor, caller: SiteCaller, siteId: string): Promise<Site> {
  const row = await reachedSite(db, caller, siteId);
  return rowToSite(row, await entryPointViews(db, [row.site_id]));
}

export async function listSites(db: Executor, caller: SiteCaller, query: PageRequest & { status?: 'active' | 'archived' }): Promise<Page<Site>> {
  const paged = await store.listSites(db, caller.organizationId, { status: query.status, sites: caller.sites }, query);
  const entries = await entryPointViews(db, paged.rows.map((row) => row.site_id));
  return toPage(paged.rows.map((row) => rowToSite(row, entries)), paged.total, paged, query.limit);
}

export async function updateSite(db: Executor, clock: Clock, caller: SiteCaller, siteId: string, input: UpdateSiteRequest): Promise<Site> {
  const organizationId = caller.organizationId;
  return inTransaction(db, async (trx) => {
    // Changes of the default, and archiving, one at a time: each reads the site after the other's commit.
    if (input.is_default) await store.lockDefaultSite(trx, organizationId);
    const row = await reachedSite(trx, caller, siteId);
    if (input.name !== undefined) await assertNameFree(trx, organizationId, input.name, siteId);
    const changes: Partial<SiteRow> = { updated_at: clock.now().toISOString() };
    if (input.name !== undefined) changes.name = input.name;
    if (input.address !== undefined) changes.address = input.address;
    if (input.location !== undefined) {
      changes.latitude = input.location?.latitude ?? null;
      changes.longitude = input.location?.longitude ?? null;
    }
    if (input.time_zone !== undefined) changes.time_zone = input.time_zone;
    if (input.call_list !== undefined) changes.call_list = JSON.stringify(input.call_list);
    if (input.is_default === false) throw badRequest('is_default: only true: a site stops being the default when another site becomes it');
    if (input.is_default && row.is_default !== 1) {
      if (row.archived_at) throw conflict(`is_default: ${row.name} is archived; an archived site cannot be the default`);
      // One default per organization (migration 0044): the one before stops being it in the same transaction.
      await store.clearDefaultSite(trx, organizationId, changes.updated_at!);
      changes.is_default = 1;
    }
    await store.updateSite(trx, siteId, changes);
    return rowToSite({ ...row, ...changes }, await entryPointViews(trx, [siteId]));
  });
}

/** Archived: listed as such, kept for its history. The default site is where what names no site belongs: it is not archived. */
export async function archiveSite(db: Executor, clock: Clock, organizationId: string, siteId: string): Promise<Site> {
  return inTransaction(db, async (trx) => {
    await store.lockDefaultSite(trx, organizationId);
    const row = await store.findSite(trx, organizationId, siteId);
    if (!row) throw notFound('Site');
    if (row.is_default === 1) throw conflict("The organization's default site cannot be archived: codes and visits that name no site belong to it. Make another site the default first");
    if (row.archived_at) throw conflict('Site is already archived');
    const at = clock.now().toISOString();
    await store.updateSite(trx, siteId, { archived_at: at, updated_at: at });
    return rowToSite({ ...row, archived_at: at, updated_at: at }, await entryPointViews(trx, [siteId]));
  });
}

/**
 * The id of the organization's default site, where what names no site belongs (migration 0026).
 * Read each time: the default moves when another site is made it (issue #48), on any host.
 */
export async function defaultSiteIdOf(db: Executor, organizationId: string): Promise<string> {
  const row = await store.findDefaultSite(db, organizationId);
  if (!row) throw new Error(`organization ${organizationId} has no default site`);
  return row.site_id;
}

/** What a gate's kiosk knows of its site: its name and whom to call. */
export interface SiteSummary {
  site_id: string;
  name: string;
  call_list: Site['call_list'];
}

export async function siteSummaryOf(db: Executor, organizationId: string, siteId: string): Promise<SiteSummary | undefined> {
  const row = await store.findSite(db, organizationId, siteId);
  return row && { site_id: row.site_id, name: row.name, call_list: callListView(row.call_list) };
}

/** Where a request says something happens or admits: a site, and perhaps one of its entry points. */
export interface Place {
  siteId: string;
  entryPointId: string | null;
}

/**
 * The place a request names: `entry_point_id` (one of the organization's entry points; it
 * implies its site) and `site_id` (one of its sites), agreeing when both are given. A site
 * another organization holds is unknown here, as one that does not exist: a 400 naming the
 * field, never a hint. `active`: the site must not be archived, nor the entry point retired (new codes, new incidents).
 * Undefined when the request names neither.
 */
export async function placeNamedIn(
  db: Executor,
  caller: SiteCaller,
  named: { site_id?: string; entry_point_id?: string },
  options: { active?: boolean; field?: string } = {},
): Promise<Place | undefined> {
  const organizationId = caller.organizationId;
  const prefix = options.field ? `${options.field}.` : '';
  let entryPoint: EntryPointRow | undefined;
  if (named.entry_point_id !== undefined) {
    entryPoint = await store.findEntryPoint(db, organizationId, named.entry_point_id);
    // A gate of a site beyond a limited caller's is unknown to them, as another organization's.
    if (entryPoint && !reachesSite(caller.sites, entryPoint.site_id, 'organization')) entryPoint = undefined;
    if (!entryPoint) throw badRequest(`${prefix}entry_point_id: no entry point ${named.entry_point_id} in this organization`);
    if (named.site_id !== undefined && named.site_id !== entryPoint.site_id) {
      throw badRequest(`${prefix}entry_point_id: ${named.entry_point_id} is an entry point of another site than ${named.site_id}`);
    }
  }
  const siteId = named.site_id ?? entryPoint?.site_id;
  if (siteId === undefined) return undefined;
  const site = await store.findSite(db, organizationId, siteId);
  if (!site || !reachesSite(caller.sites, site.site_id, 'organization')) throw badRequest(`${prefix}site_id: no site ${siteId} in this organization`);
  if (options.active && site.archived_at) throw badRequest(`${prefix}site_id: ${site.name} is archived`);
  if (options.active && entryPoint?.retired_at) throw badRequest(`${prefix}entry_point_id: ${entryPoint.name} is retired: it takes no new codes (its codes stay valid)`);
  return { siteId: site.site_id, entryPointId: entryPoint?.entry_point_id ?? null };
}

/**
 * The site of what names none, for this caller: the organization's default site (where an old
 * caller's codes and visits always were); for a caller limited to sites, their only site, or the
 * default site when it is among theirs. A caller limited to several other sites names one: a 400
 * naming the field, never a site they do not reach.
 */
export async function defaultSiteFor(db: Executor, caller: SiteCaller, options: { field?: string; orFirst?: boolean } = {}): Promise<string> {
  const fallback = await defaultSiteIdOf(db, caller.organizationId);
  const sites = caller.sites;
  const field = options.field ?? 'site_id';
  if (!sites || sites.includes(fallback)) return fallback;
  // `orFirst`: what happened somewhere among the caller's sites and must be put at one (a visit by a code valid everywhere).
  if (sites.length === 1 || options.orFirst) return sites[0]!;
  throw badRequest(`${field}: required, since you are limited to ${sites.length} sites; name one of them`);
}

/** The place a request names (`placeNamedIn`), else the caller's default site (`defaultSiteFor`). */
export async function placeFor(
  db: Executor,
  caller: SiteCaller,
  named: { site_id?: string; entry_point_id?: string },
  options: { active?: boolean; field?: string } = {},
): Promise<Place> {
  return (await placeNamedIn(db, caller, named, options)) ?? { siteId: await defaultSiteFor(db, caller, { field: options.field ? `${options.field}.site_id` : 'site_id' }), entryPointId: null };
}

/**
 * The sites a new key, membership or webhook endpoint is limited to (issue #34): those named,
 * each an active site of the organization the caller reaches (400 naming `field` otherwise);
 * none named: the caller's own limit (null, every site, for a caller who reaches every site).
 * A caller never makes anything that reaches further than they do.
 */
export async function siteLimitFor(db: Executor, caller: SiteCaller, named: readonly string[] | undefined, field = 'site_ids'): Promise<string[] | null> {
  if (named === undefined) return caller.sites ? [...caller.sites] : null;
  const unique = [...new Set(named)];
  const found = new Set((await store.activeSitesAmong(db, caller.organizationId, unique)).map((row) => row.site_id));
  const unknown = unique.find((siteId) => !found.has(siteId) || !reachesSite(caller.sites, siteId, 'organization'));
  if (unknown) throw badRequest(`${field}: no active site ${unknown} in this organization${caller.sites ? ' within your sites' : ''}`);
  return unique;
}
