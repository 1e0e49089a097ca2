import { sql, type Kysely } from 'kysely';

/**
 * What happens at a gate names its site (issue #34).
 *
 * - `access_codes.site_id`: the site whose gates admit the code; `entry_point_id`, when set, the
 *   one gate that does. Codes made before sites keep `site_id` null: valid at every site of
 *   their organization until they expire, as they were when issued.
 * - `access_logs.site_id`: where the visit happened. Visits from before sites happened at the
 *   organization's one site, so they are its default site's (migration 0026).
 * - `incidents.site_id`: the site an incident was raised at (a gate's SOS) or that the partner
 *   named; null for an incident anywhere else. Incidents from before keep null: an SOS from a
 *   partner's app was not at an estate.
 *
 * Each list filters by site, hence an index per table beside its tenant.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('access_codes').addColumn('site_id', 'text').execute();
  await db.schema.alterTable('access_codes').addColumn('entry_point_id', 'text').execute();
  await db.schema.alterTable('access_logs').addColumn('site_id', 'text').execute();
  await db.schema.alterTable('incidents').addColumn('site_id', 'text').execute();
  await sql`
    update access_logs set site_id = (
      select sites.site_id from sites where sites.organization_id = access_logs.organization_id and sites.is_default = 1
    )
  `.execute(db);
  await db.schema.createIndex('access_codes_by_site').on('access_codes').columns(['organization_id', 'environment', 'site_id']).execute();
  await db.schema.createIndex('access_logs_by_site').on('access_logs').columns(['organization_id', 'environment', 'site_id', 'checked_in_at']).execute();
  await db.schema.createIndex('incidents_by_site').on('incidents').columns(['organization_id', 'environment', 'site_id', 'created_at']).execute();
}
