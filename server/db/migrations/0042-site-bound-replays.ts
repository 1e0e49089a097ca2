import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * Issue #46: two seams between sites and the rest.
 *
 * `idempotency_requests.site_ids`: the sites the caller that made a record reached (a JSON array;
 * null, every site), so a stored answer is replayed only to a caller who reaches at least as
 * much (a code, a pass, a visitor's name and phone of another site are not a limited key's to
 * read by presenting the same Idempotency-Key). Records from before were made by callers we no
 * longer know: null, so only a caller of every site replays them (they are kept 24 hours).
 *
 * `kiosks.clock_skew_ds` becomes `bigint` on PostgreSQL: a kiosk whose clock battery died reports
 * 1970 or 9999, tenths of a second that no `integer` holds (its heartbeat failed). SQLite's
 * integer is 64 bits already.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('idempotency_requests').addColumn('site_ids', 'text').execute();
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`alter table kiosks alter column clock_skew_ds type bigint`.execute(db);
  }
}
