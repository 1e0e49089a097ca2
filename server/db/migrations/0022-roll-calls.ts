import type { Kysely } from 'kysely';

/**
 * Roll calls (issue #28): a snapshot of who was on site, copied from the open visits when it was
 * taken (a visit checked out later stays on the list: the list is what the marshals work from),
 * and each entry's tick, shared by everyone working it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('roll_calls')
    .addColumn('roll_call_id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('entry_points', 'text')
    .addColumn('warnings', 'text', (c) => c.notNull())
    .addColumn('created_by_type', 'text', (c) => c.notNull())
    .addColumn('created_by_id', 'text', (c) => c.notNull())
    .addColumn('created_by_label', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('roll_calls_by_tenant').on('roll_calls').columns(['organization_id', 'environment', 'created_at']).execute();

  await db.schema
    .createTable('roll_call_entries')
    .addColumn('roll_call_id', 'text', (c) => c.notNull().references('roll_calls.roll_call_id'))
    .addColumn('log_id', 'text', (c) => c.notNull())
    .addColumn('visitor_name', 'text')
    .addColumn('visitor_phone', 'text')
    .addColumn('entry_point', 'text')
    .addColumn('checked_in_at', 'text', (c) => c.notNull())
    .addColumn('accounted_for', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('accounted_by_type', 'text')
    .addColumn('accounted_by_id', 'text')
    .addColumn('accounted_by_label', 'text')
    .addColumn('accounted_at', 'text')
    .addPrimaryKeyConstraint('roll_call_entries_pk', ['roll_call_id', 'log_id'])
    .execute();
  // The retention erasure finds a visit's copies by its log id.
  await db.schema.createIndex('roll_call_entries_by_log').on('roll_call_entries').column('log_id').execute();
}
