import { sql, type Kysely } from 'kysely';

/**
 * `webhook_deliveries` carried the same index twice: `webhook_deliveries_by_endpoint` (0003) and
 * `webhook_deliveries_by_attempt` (0036), both `(endpoint_id, attempted_at, delivery_id)`, each
 * written on every delivery (a quarter of the table's index bytes on a generated year, issue
 * #45). 0036's goes; 0003's, which every database has had from the start, serves an endpoint's
 * deliveries and their cursor. 0036 no longer declares it, so PostgreSQL's online index build
 * does not make it again.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists webhook_deliveries_by_attempt`.execute(db);
}
