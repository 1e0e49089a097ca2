import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * An SOS writes fewer pages (issue #33), with the same rows and the same feed numbers.
 *
 * - SQLite: an event is written once with its feed position. Migration 0020's trigger numbered
 *   it after the insert, rewriting the new row and its `events_by_feed_seq` entry; now the
 *   insert itself takes `(select seq from event_feed where id = 1) + 1` (+ 2, ... for the rest of
 *   a several-row insert: server/events/store.ts) and a trigger only moves the counter to it.
 *   The counter is still read and moved in the inserting transaction, and there is still one
 *   writer, so numbers become visible in commit order as before. An insert that names no
 *   position (a test's, an older path's) is numbered as 0020 did it.
 * - Both engines: `incidents_by_responder` and `incidents_by_next_step` hold only the incidents
 *   with a responder, and with a step due. A new SOS has neither, and every query on those
 *   columns compares them (`responder_id = ?`, `next_step_at <= ?`), which implies IS NOT NULL,
 *   so both planners still use the partial index (EXPLAIN in test/db/sos-writes.test.ts).
 *   The next-step index also stops growing with the resolved incidents, which have no step due.
 *
 * The PostgreSQL numbering (0020's sequencer) does not change.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('incidents_by_responder').execute();
  await db.schema
    .createIndex('incidents_by_responder')
    .on('incidents')
    .columns(['responder_id', 'status'])
    .where(sql.ref('responder_id'), 'is not', null)
    .execute();
  await db.schema.dropIndex('incidents_by_next_step').execute();
  await db.schema.createIndex('incidents_by_next_step').on('incidents').column('next_step_at').where(sql.ref('next_step_at'), 'is not', null).execute();

  if (db.getExecutor().adapter instanceof PostgresAdapter) return;
  await sql`drop trigger events_feed_seq`.execute(db);
  await sql`
    create trigger events_feed_seq after insert on events when new.feed_seq is null begin
      update event_feed set seq = seq + 1 where id = 1;
      update events set feed_seq = (select seq from event_feed where id = 1) where rowid = new.rowid;
    end
  `.execute(db);
  // The counter never moves back: a position named below it (none of ours) leaves it alone.
  await sql`
    create trigger events_feed_counter after insert on events when new.feed_seq is not null begin
      update event_feed set seq = new.feed_seq where id = 1 and seq < new.feed_seq;
    end
  `.execute(db);
}
