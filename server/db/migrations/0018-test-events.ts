import type { Kysely } from 'kysely';

/**
 * Test events (`POST /webhook-endpoints/{id}/test`): stored like any event, so their deliveries are
 * recorded and can be looked at, but marked, so the event log leaves them out unless asked.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('events').addColumn('test', 'integer', (c) => c.notNull().defaultTo(0)).execute();
}
