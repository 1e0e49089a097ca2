import { sql, type Kysely } from 'kysely';

/**
 * Names people choose (issue #48): gates are renamed and retired, and another site can become
 * the default.
 *
 * - `entry_point_names`: a gate's former names. A kiosk set up with a name keeps sending it
 *   after the gate is renamed, and still reaches that gate; unique within the site, as current
 *   names are (a new gate given a former name takes it over: the row is deleted).
 * - `entry_points.retired_at`: a gate that codes are bound to is retired rather than removed: it
 *   takes no new code, and its codes stay valid.
 * - `sites_one_default`: at most one default site per organization, now that the default can
 *   move (it is what names no site's site, and was read on the promise that it never changed).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('entry_points').addColumn('retired_at', 'text').execute();
  await db.schema
    .createTable('entry_point_names')
    .addColumn('entry_point_id', 'text', (c) => c.notNull().references('entry_points.entry_point_id'))
    .addColumn('site_id', 'text', (c) => c.notNull())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('entry_point_names_per_site').on('entry_point_names').columns(['site_id', 'name']).unique().execute();
  await db.schema.createIndex('entry_point_names_by_org').on('entry_point_names').columns(['organization_id', 'name']).execute();
  await db.schema.createIndex('entry_point_names_of_gate').on('entry_point_names').column('entry_point_id').execute();
  await db.schema.createIndex('sites_one_default').on('sites').column('organization_id').unique().where(sql.ref('is_default'), '=', 1).execute();
}
