import { sql, type Kysely } from 'kysely';

/**
 * A kiosk stands at a gate of a site (issue #34): `kiosks.site_id`. Kiosks from before sites
 * stand at their organization's default site, where migration 0026 registered their gates. A
 * kiosk's SOS names its site, so the board shows that site's call list and texts it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('kiosks').addColumn('site_id', 'text').execute();
  await sql`
    update kiosks set site_id = (
      select sites.site_id from sites where sites.organization_id = kiosks.organization_id and sites.is_default = 1
    )
  `.execute(db);
  await db.schema.createIndex('kiosks_by_site').on('kiosks').columns(['organization_id', 'environment', 'site_id']).execute();
}
