import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * Which endpoints an event goes to is cached per tenant (server/webhooks/queue.ts), and the
 * cache is checked in the event's own INSERT: the insert happens only while this revision still
 * reads what the cache was filled at. Every change that can change an event's destinations - an
 * endpoint added, deleted, enabled or disabled, or its event types changed - sets a new revision
 * by trigger, in the writer's transaction, whoever the writer is (this host, another, the CLI).
 * A secret rotation or a URL change does not: the delivery reads those when it sends.
 *
 * The new revision is a random number below 2^53, not the old one plus one: a transaction
 * that changed an endpoint and was rolled back may have filled a cache entry at its revision,
 * and a counter would hand that same number to the next real change.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webhook_revision')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('revision', 'bigint', (c) => c.notNull())
    .execute();
  await sql`insert into webhook_revision (id, revision) values (1, 1)`.execute(db);
  const routing = sql.raw('status, events, deleted_at, organization_id, environment');

  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`
      create function tsaro_webhooks_changed() returns trigger language plpgsql as $$
      begin
        update webhook_revision set revision = floor(random() * 9007199254740991)::bigint where id = 1;
        return null;
      end $$
    `.execute(db);
    await sql`create trigger webhook_revision_endpoints after insert or update of ${routing} or delete on webhook_endpoints for each statement execute function tsaro_webhooks_changed()`.execute(db);
    return;
  }
  const bump = sql.raw('begin update webhook_revision set revision = abs(random() % 9007199254740991) where id = 1; end');
  await sql`create trigger webhook_revision_inserted after insert on webhook_endpoints ${bump}`.execute(db);
  await sql`create trigger webhook_revision_updated after update of ${routing} on webhook_endpoints ${bump}`.execute(db);
  await sql`create trigger webhook_revision_deleted after delete on webhook_endpoints ${bump}`.execute(db);
}
