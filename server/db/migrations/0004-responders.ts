import type { Kysely } from 'kysely';

/** The service's own responder network: who, where, whether available, and a hashed API token. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('responders')
    .addColumn('responder_id', 'text', (c) => c.primaryKey())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('token_hint', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('available', 'integer', (c) => c.notNull())
    .addColumn('latitude', 'double precision')
    .addColumn('longitude', 'double precision')
    .addColumn('location_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('responders_available_by_place')
    .on('responders')
    .columns(['environment', 'status', 'available', 'latitude', 'longitude'])
    .execute();
}
