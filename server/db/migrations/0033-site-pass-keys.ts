import { sql, type Kysely } from 'kysely';

/**
 * Passes signed per site (issue #34): `pass_keys.site_id`. A pass stays TS1 and names its site
 * through its key id: each site has its own signing key per environment, so a kiosk that knows
 * its site refuses offline a pass signed by another site's key. Keys from before are the
 * organization's (site_id null): they keep verifying the passes of codes made before sites, and
 * sign a code only if one without a site is ever made again.
 *
 * One signing key per tenant becomes one per tenant and site, and one for the organization:
 * two partial unique indexes, since NULL is never equal to NULL in a unique index (in either
 * engine), so one index over `site_id` would not keep the organization's key single.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('pass_keys').addColumn('site_id', 'text').execute();
  await db.schema.dropIndex('pass_keys_one_signing_per_tenant').execute();
  await db.schema
    .createIndex('pass_keys_one_signing_per_organization')
    .on('pass_keys')
    .columns(['organization_id', 'environment'])
    .unique()
    .where(sql.ref('retired_at'), 'is', null)
    .where(sql.ref('site_id'), 'is', null)
    .execute();
  await db.schema
    .createIndex('pass_keys_one_signing_per_site')
    .on('pass_keys')
    .columns(['organization_id', 'environment', 'site_id'])
    .unique()
    .where(sql.ref('retired_at'), 'is', null)
    .execute();
}
