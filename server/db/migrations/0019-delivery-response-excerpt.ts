import type { Kysely } from 'kysely';

/** What the receiver answered, its first 500 characters as text: the delivery log shows why an attempt failed. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('webhook_deliveries').addColumn('response_excerpt', 'text').execute();
}
