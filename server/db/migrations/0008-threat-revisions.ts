import { sql, type Kysely } from 'kysely';

/**
 * Every write to threat_events takes the next revision from one counter row, in its own
 * transaction, and stamps its rows with it. Revisions are therefore handed out in commit order,
 * so a server that has loaded up to revision N loads `revision > N` and never skips a late
 * commit (an import from the CLI, a verified incident on another host).
 *
 * Verified incidents recorded before this migration become threat events here, so every
 * source lives in the one table the threat engine reads.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('threat_revision')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('revision', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.alterTable('threat_events').addColumn('revision', 'integer', (c) => c.notNull().defaultTo(1)).execute();
  await db.schema.createIndex('threat_events_by_revision').on('threat_events').columns(['revision']).execute();

  const severity = sql`case severity when 'critical' then 9 when 'high' then 7 when 'medium' then 5 else 3 end`;
  const type = sql`case category when 'vehicle' then 'road_incident' when 'location_threat' then 'armed_robbery' else 'crime' end`;
  await sql`
    insert into threat_events (event_id, source, dataset, occurred_on, latitude, longitude, precision, type, severity,
      fatalities, weight, country, admin1, admin2, place, description, imported_at, revision)
    select 'verified:' || incident_id, 'verified', 'Tsaro verified incidents', substr(occurred_at, 1, 10), latitude,
      longitude, 1, ${type}, ${severity}, 0, 1, null, null, null, null, null, resolved_at, 1
    from verified_incidents where category <> 'medical'
  `.execute(db);
  await sql`insert into threat_revision (id, revision) values (1, 1)`.execute(db);
}
