import { sql, type Kysely } from 'kysely';

/**
 * Texts have hourly ceilings (issue #46): the sender decides, once per text, whether it may go
 * (`cleared_at`), is held (a host's text over a ceiling: status `held`, never sent) or is merged
 * into one text with other alarms to the same number (`merged_into`, status `merged`).
 *
 * - Every text queued before this had no ceiling to pass: it is cleared as of its creation, so it
 *   goes (or went) as before, and counts toward its number's hour.
 * - The ceilings count what was cleared in the last hour, per number (`text_messages_cleared`,
 *   which also finds a number's alarms still to decide: `cleared_at` null) and per organization
 *   (`text_messages_cleared_by_tenant`). A carrier's merged alarms: `text_messages_merged_into`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('text_messages').addColumn('cleared_at', 'text').execute();
  await db.schema.alterTable('text_messages').addColumn('merged_into', 'text').execute();
  await sql`update text_messages set cleared_at = created_at`.execute(db);
  await db.schema.createIndex('text_messages_cleared').on('text_messages').columns(['organization_id', 'environment', 'phone', 'cleared_at']).execute();
  await db.schema.createIndex('text_messages_cleared_by_tenant').on('text_messages').columns(['organization_id', 'environment', 'cleared_at']).execute();
  await db.schema
    .createIndex('text_messages_merged_into')
    .on('text_messages')
    .column('merged_into')
    .where(sql.ref('merged_into'), 'is not', null)
    .execute();
}
