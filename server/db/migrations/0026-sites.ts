import { sql, type Kysely } from 'kysely';
import { newId } from '../../ids.ts';

/**
 * Sites (issue #34): an organization's estates or premises, each with its gates (entry points)
 * and its call list (JSON: `[{name, phone}]`, phones in E.164). Sites belong to the organization,
 * shared by live and sandbox. A site's name is unique in its organization, an entry point's in
 * its site.
 *
 * Every organization gets one default site, named after it, holding the entry points its codes,
 * visits and kiosks already name (in both environments): what names no site belongs there, so
 * nothing an old caller sends changes meaning.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('sites')
    .addColumn('site_id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.organization_id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('address', 'text')
    .addColumn('latitude', 'real')
    .addColumn('longitude', 'real')
    .addColumn('time_zone', 'text', (c) => c.notNull())
    .addColumn('call_list', 'text', (c) => c.notNull())
    .addColumn('is_default', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('archived_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sites_name_per_org').on('sites').columns(['organization_id', 'name']).unique().execute();
  await db.schema
    .createTable('entry_points')
    .addColumn('entry_point_id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.site_id'))
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('entry_points_name_per_site').on('entry_points').columns(['site_id', 'name']).unique().execute();
  await db.schema.createIndex('entry_points_by_org').on('entry_points').columns(['organization_id', 'name']).execute();

  const now = new Date();
  const at = now.toISOString();
  const organizations = await sql<{ organization_id: string; name: string }>`select organization_id, name from organizations order by created_at`.execute(db);
  for (const organization of organizations.rows) {
    const siteId = newId('site', now);
    await sql`
      insert into sites (site_id, organization_id, name, address, latitude, longitude, time_zone, call_list, is_default, archived_at, created_at, updated_at)
      values (${siteId}, ${organization.organization_id}, ${organization.name}, null, null, null, 'Africa/Lagos', '[]', 1, null, ${at}, ${at})
    `.execute(db);
    const used = await sql<{ name: string }>`
      select distinct trim(entry_point) as name from (
        select entry_point from access_codes where organization_id = ${organization.organization_id} and entry_point is not null
        union select entry_point from access_logs where organization_id = ${organization.organization_id} and entry_point is not null
        union select entry_point from kiosks where organization_id = ${organization.organization_id}
      ) used
      where trim(entry_point) <> ''
      order by name
    `.execute(db);
    for (const { name } of used.rows) {
      await sql`insert into entry_points (entry_point_id, site_id, organization_id, name, created_at) values (${newId('ent', now)}, ${siteId}, ${organization.organization_id}, ${name.slice(0, 200)}, ${at})`.execute(db);
    }
  }
}
