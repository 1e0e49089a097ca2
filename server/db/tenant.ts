import { sql, type Expression, type ExpressionBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import { isPostgres, type Database, type Executor, type Tenant } from './schema.ts';

/** The tables partitioned by tenant: every one with an organization and an environment column. */
export type TenantTable = {
  [T in keyof Database]: Database[T] extends { organization_id: string; environment: string } ? T : never;
}[keyof Database];

/**
 * The tenant filter, `organization_id = ? and environment = ?`: the rule that a caller never
 * reaches another organization's (or environment's) rows, written once. Pass it to `.where()`
 * of a query on a tenant table (the type checker refuses any other); name the table when the
 * query joins another that has the same columns.
 */
export function whereTenant(tenant: Tenant, table?: TenantTable) {
  const column = (name: 'organization_id' | 'environment') => sql.ref<string>(table ? `${table}.${name}` : name);
  return <TB extends TenantTable>(eb: ExpressionBuilder<Database, TB>): Expression<SqlBool> =>
    eb.and([eb(column('organization_id'), '=', tenant.organizationId), eb(column('environment'), '=', tenant.environment)]);
}

/**
 * The tenant as a compiled-once query's parameters (server/db/prepared.ts): exactly
 * `{organizationId, environment}`, since such a query refuses parameter names it does not know
 * (a `Tenant` may carry more).
 */
export function tenantParams(tenant: Tenant): { organizationId: string; environment: Tenant['environment'] } {
  return { organizationId: tenant.organizationId, environment: tenant.environment };
}

/** The tables that hold a `site_id` beside their tenant columns. */
export type SiteTable = {
  [T in keyof Database]: Database[T] extends { organization_id: string; environment: string; site_id?: string | null } ? T : never;
}[keyof Database];

/**
 * What a row with no site is, to a caller limited to sites:
 * - `everywhere`: valid at every site, so in each site's reach (a code made before sites);
 * - `organization`: the whole organization's, so only for callers who reach every site (an
 *   incident anywhere else, a roll call of every site, an event about neither).
 */
export type SitelessRow = 'everywhere' | 'organization';

/** Whether a caller whose reach is `sites` (null or absent: every site) reaches a row at `siteId`. */
export function reachesSite(sites: readonly string[] | null | undefined, siteId: string | null | undefined, siteless: SitelessRow): boolean {
  if (!sites) return true;
  if (siteId === null || siteId === undefined) return siteless === 'everywhere';
  return sites.includes(siteId);
}

/**
 * The site filter beside the tenant filter: a caller limited to sites reaches only their sites'
 * rows (and siteless rows per `siteless`); any other caller, every row. With `siteId` (a list's
 * `site_id` filter) only that site's rows, still within reach. Written once, for every list and
 * read of a site table.
 */
export function whereSiteReached(tenant: Tenant, siteless: SitelessRow, options: { siteId?: string } = {}) {
  const column = sql.ref<string | null>('site_id');
  const wanted = narrowedToSite(tenant, options.siteId).sites ?? null;
  return <TB extends SiteTable>(eb: ExpressionBuilder<Database, TB>): Expression<SqlBool> => {
    if (wanted === null) return eb.and([]);
    const inSites = wanted.length ? eb(column, 'in', wanted) : eb.lit(false);
    return siteless === 'everywhere' ? eb.or([inSites, eb(column, 'is', null)]) : eb.and([inSites]);
  };
}

/** A stored `site_ids` column (keys, memberships, invitations, endpoints): a JSON array; null is every site. */
export const parseSiteIds = (column: string | null | undefined): string[] | null => (column ? (JSON.parse(column) as string[]) : null);

/** The tables whose rows are limited to sites by a `site_ids` list (keys, webhook endpoints). */
export type SiteListTable = 'api_keys' | 'webhook_endpoints';

/**
 * For a caller limited to sites: only rows limited to sites within theirs (a key or endpoint
 * reaching further than its caller is not theirs to see or change); any other caller, every row.
 */
export function whereSitesWithin(db: Executor, tenant: Tenant) {
  const sites = tenant.sites ?? null;
  return <TB extends SiteListTable>(eb: ExpressionBuilder<Database, TB>): Expression<SqlBool> => {
    if (sites === null) return eb.and([]);
    if (sites.length === 0) return eb.lit(false);
    const outside = isPostgres(db)
      ? sql<SqlBool>`not exists (select 1 from jsonb_array_elements_text(site_ids::jsonb) as listed(site_id) where listed.site_id not in (${sql.join(sites)}))`
      : sql<SqlBool>`not exists (select 1 from json_each(site_ids) where json_each.value not in (${sql.join(sites)}))`;
    return eb.and([eb(sql.ref<string | null>('site_ids'), 'is not', null), outside]);
  };
}

/**
 * The tenant narrowed to one site (a report's or a read's `site_id`), within the caller's reach:
 * what `whereSiteReached` then filters by. A site beyond the caller's reach narrows to none.
 */
export function narrowedToSite<T extends Tenant>(tenant: T, siteId: string | undefined): T {
  if (siteId === undefined) return tenant;
  return { ...tenant, sites: !tenant.sites || tenant.sites.includes(siteId) ? [siteId] : [] };
}

/**
 * What a row with no site is, per table that has sites, declared once (see `SitelessRow`): codes
 * made before sites are valid at every site; every other siteless row is the organization's.
 */
const SITELESS_ROWS: Partial<Record<TenantTable, SitelessRow>> = {
  access_codes: 'everywhere',
  access_logs: 'organization',
  incidents: 'organization',
  kiosks: 'organization',
  roll_calls: 'organization',
  events: 'organization',
  text_messages: 'organization',
};

/**
 * The one door to a tenant table: a query already filtered to the caller's organization and
 * environment and, for a table with sites, to the sites the caller reaches (and to `siteId`, a
 * list's `site_id`, within that reach), by the table's own policy for siteless rows. A store
 * starts its reads here, so it cannot forget either filter; both lead every index a list uses.
 */
export function fromTenant<T extends TenantTable>(db: Executor, tenant: Tenant, table: T, options: { siteId?: string } = {}) {
  const query = db.selectFrom(table as TenantTable).where(whereTenant(tenant));
  const siteless = SITELESS_ROWS[table];
  return (siteless ? query.where(whereSiteReached(tenant, siteless, options)) : query) as unknown as SelectQueryBuilder<Database, T, object>;
}

/**
 * The one door across organizations: a query on a tenant table with no tenant filter. Only the
 * operations centre's store may import it (the tenant rule's named exception, eslint.config.js):
 * Tsaro's staff see every organization's live incidents. Every other query takes `whereTenant`.
 */
export function acrossOrganizations<T extends TenantTable>(db: Executor, table: T) {
  return db.selectFrom(table as TenantTable) as unknown as SelectQueryBuilder<Database, T, object>;
}
