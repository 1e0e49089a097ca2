import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * Keys, people and webhook endpoints limited to sites (issue #34): `site_ids`, a JSON array of
 * site ids, on `api_keys`, `memberships`, `invitations` (what the invited person's membership
 * will hold) and `webhook_endpoints`; null, as every row from before, is every site.
 *
 * `events.site_id`: the site of the resource an event reports, copied from its data at insert,
 * so a caller limited to sites reads only their sites' events (GET /events, the stream,
 * deliveries) with an indexed filter. Events from before are filled from their data here.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ['api_keys', 'memberships', 'invitations', 'webhook_endpoints']) {
    await db.schema.alterTable(table).addColumn('site_ids', 'text').execute();
  }
  await db.schema.alterTable('events').addColumn('site_id', 'text').execute();
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`create trigger webhook_revision_endpoint_sites after update of site_ids on webhook_endpoints for each statement execute function tsaro_webhooks_changed()`.execute(db);
    await sql`update events set site_id = data::jsonb ->> 'site_id' where data::jsonb ? 'site_id'`.execute(db);
  } else {
    await sql`create trigger webhook_revision_endpoint_sites after update of site_ids on webhook_endpoints begin update webhook_revision set revision = abs(random() % 9007199254740991) where id = 1; end`.execute(db);
    await sql`update events set site_id = json_extract(data, '$.site_id') where json_valid(data) and json_type(data, '$.site_id') = 'text'`.execute(db);
  }
}
