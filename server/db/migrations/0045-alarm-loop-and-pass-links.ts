import type { Kysely } from 'kysely';

/**
 * The alarm loop closed, and a pass sent by text (issue #48).
 *
 * - `alarm_stand_downs`: an incident whose alarm texts are over, once: the guard reported a false
 *   alarm, or the incident was cancelled or resolved. No alarm text is queued for it after this
 *   row, and its all-clear goes (to the numbers an alarm text had reached) when the row is made.
 * - `text_messages.link_sealed`: a text carrying a secret link (a visitor's pass) keeps the link
 *   sealed with the server's key until the gateway takes it, then forgets it; its `body` shows
 *   the link cut short.
 * - `pass_links`: a visitor's pass sent by text, by the SHA-256 of its link's token (the token
 *   itself is never stored). Counted per code and per organization for the send's limits.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('alarm_stand_downs')
    .addColumn('incident_id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('cause', 'text', (c) => c.notNull())
    .addColumn('stood_down_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.alterTable('text_messages').addColumn('link_sealed', 'text').execute();
  await db.schema
    .createTable('pass_links')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('code_id', 'text', (c) => c.notNull())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('pass_links_of_code').on('pass_links').columns(['code_id', 'created_at']).execute();
  await db.schema.createIndex('pass_links_by_tenant').on('pass_links').columns(['organization_id', 'environment', 'created_at']).execute();
}
