import type { Kysely } from 'kysely';

/**
 * Gate kiosks as their heartbeats describe them (issue #28). The key is the tenant and the id
 * the kiosk made: the same id sent by another organization (or environment) is another row,
 * never a clash that would tell it the id exists. `offline_since` is the sweep's claim on an
 * outage: set once (a conditional UPDATE), so one host raises `kiosk.offline`, and cleared by
 * the heartbeat that raises `kiosk.online`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('kiosks')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('kiosk_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('entry_point', 'text', (c) => c.notNull())
    .addColumn('app_version', 'text', (c) => c.notNull())
    .addColumn('queued_operations', 'integer', (c) => c.notNull())
    .addColumn('oldest_queued_at', 'text')
    .addColumn('last_sync_at', 'text')
    .addColumn('needs_attention', 'integer', (c) => c.notNull())
    .addColumn('clock', 'text', (c) => c.notNull())
    .addColumn('clock_skew_ds', 'integer')
    .addColumn('last_seen_at', 'text', (c) => c.notNull())
    .addColumn('offline_since', 'text')
    .addColumn('first_seen_at', 'text', (c) => c.notNull())
    .addColumn('retired_at', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('kiosks_pk', ['organization_id', 'environment', 'kiosk_id'])
    .execute();
  // The sweep's question, across tenants: which kiosks have gone quiet since.
  await db.schema.createIndex('kiosks_by_last_seen').on('kiosks').columns(['last_seen_at']).execute();
}
