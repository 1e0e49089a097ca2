import type { Kysely } from 'kysely';

/**
 * Already inside (issue #49): a check-in the guard let in although the code's holder had an
 * open visit at the site records it (`already_inside_override`, 1), and a validation can ask
 * whether the holder is inside before it spends a use: the code's open visits, by code.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('access_logs')
    .addColumn('already_inside_override', 'integer', (column) => column.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('access_logs_by_code').on('access_logs').columns(['code_id', 'status']).execute();
}
