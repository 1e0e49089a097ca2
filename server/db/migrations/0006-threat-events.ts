import type { Kysely } from 'kysely';

/**
 * One normalized table of security events feeds every threat endpoint: public event data
 * (UCDP GED, ACLED), community reports (lower weight) and verified incidents.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('threat_events')
    .addColumn('event_id', 'text', (c) => c.primaryKey())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('dataset', 'text', (c) => c.notNull())
    .addColumn('occurred_on', 'text', (c) => c.notNull())
    .addColumn('latitude', 'double precision', (c) => c.notNull())
    .addColumn('longitude', 'double precision', (c) => c.notNull())
    .addColumn('precision', 'integer', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('severity', 'integer', (c) => c.notNull())
    .addColumn('fatalities', 'integer', (c) => c.notNull())
    .addColumn('weight', 'double precision', (c) => c.notNull())
    .addColumn('country', 'text')
    .addColumn('admin1', 'text')
    .addColumn('admin2', 'text')
    .addColumn('place', 'text')
    .addColumn('description', 'text')
    .addColumn('imported_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('threat_events_by_day').on('threat_events').columns(['occurred_on']).execute();
}
