import type { Kysely } from 'kysely';

/**
 * A host told when their visitor arrives (issue #35): a code's optional `host_phone` (E.164,
 * opt-in per code), and the visit a text is about (`text_messages.log_id`).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('access_codes').addColumn('host_phone', 'text').execute();
  await db.schema.alterTable('text_messages').addColumn('log_id', 'text').execute();
}
