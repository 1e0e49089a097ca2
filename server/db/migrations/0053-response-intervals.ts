import { sql, type Kysely } from 'kysely';

/**
 * The response intervals (issue #47): when each offer of an incident was first made. A decliner
 * asked again in a later round has their offer's row reopened (0049), which moves `offered_at`
 * to the new offer; `first_offered_at` keeps the first, so an incident's first offer (the end of
 * call processing) is the earliest `first_offered_at` of its offers, whatever was reopened
 * since. Offers made before this migration: their `offered_at`, the best record there is.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('dispatch_offers').addColumn('first_offered_at', 'text').execute();
  await sql`update dispatch_offers set first_offered_at = offered_at`.execute(db);
}
