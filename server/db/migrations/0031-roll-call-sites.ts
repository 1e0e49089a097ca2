import type { Kysely } from 'kysely';

/**
 * A roll call may be taken for one site (issue #34): `roll_calls.site_id`, null for one of the
 * whole organization (every roll call from before).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('roll_calls').addColumn('site_id', 'text').execute();
}
