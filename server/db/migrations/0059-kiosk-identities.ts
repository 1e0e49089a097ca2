import type { Kysely } from 'kysely';

/**
 * Kiosks with identities (issue #49): each site has a kiosk authority, an Ed25519 key pair of its
 * own (not the pass-signing keys: a key that certifies gates must not be the one that signs
 * visitors' passes), whose private key is sealed as the pass keys' are; a kiosk binds its own
 * public key and gets short-lived certificates its peers at the site check.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('kiosk_authorities')
    .addColumn('kid', 'text', (col) => col.primaryKey())
    .addColumn('organization_id', 'text', (col) => col.notNull())
    .addColumn('environment', 'text', (col) => col.notNull())
    .addColumn('site_id', 'text', (col) => col.notNull())
    .addColumn('public_key', 'text', (col) => col.notNull())
    .addColumn('private_key', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .execute();
  // One authority per site and environment: two kiosks enrolling at once agree on it.
  await db.schema.createIndex('kiosk_authorities_site').unique().on('kiosk_authorities').columns(['organization_id', 'environment', 'site_id']).execute();
  await db.schema.alterTable('kiosks').addColumn('public_key', 'text').execute();
  await db.schema.alterTable('kiosks').addColumn('certified_at', 'text').execute();
  await db.schema.alterTable('kiosks').addColumn('certificate_expires_at', 'text').execute();
}
