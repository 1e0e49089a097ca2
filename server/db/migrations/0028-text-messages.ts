import type { Kysely } from 'kysely';

/**
 * Text messages (issue #35): every SMS Tsaro sends, from the moment it is queued (in the
 * transaction of the change that calls for it) to its delivery report. `status`: queued, sent
 * (the gateway took it), delivered or failed. A worker claims due messages with a lease
 * (`locked_until`), so each is handed to the gateway by one host at a time; `dlr_token_sealed`
 * authenticates the gateway's delivery report for this message alone.
 * `(incident_id, reason, phone)` is unique: one alarm texts a number once, whoever queues it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('text_messages')
    .addColumn('message_id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('incident_id', 'text')
    .addColumn('site_id', 'text')
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('recipient_name', 'text', (c) => c.notNull())
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text', (c) => c.notNull())
    .addColumn('locked_until', 'text')
    .addColumn('last_error', 'text')
    .addColumn('dlr_token_sealed', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('sent_at', 'text')
    .addColumn('delivered_at', 'text')
    .addColumn('failed_at', 'text')
    .execute();
  await db.schema.createIndex('text_messages_once_per_alarm').on('text_messages').columns(['incident_id', 'reason', 'phone']).unique().execute();
  await db.schema.createIndex('text_messages_due').on('text_messages').columns(['status', 'next_attempt_at']).execute();
  await db.schema.createIndex('text_messages_by_tenant').on('text_messages').columns(['organization_id', 'environment', 'created_at']).execute();
}
