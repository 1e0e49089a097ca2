import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * The event stream's position: `events.feed_seq`, a number given in the order events become
 * visible (committed), which event ids are not (an id is made before its transaction commits,
 * and a transaction holding an earlier id can commit after one holding a later id, on another
 * host or on this one). A stream reads `feed_seq > cursor`, so it skips nothing and repeats
 * nothing whatever order commits come in (docs/architecture.md, "The event stream").
 *
 * - SQLite (one writer): a trigger numbers each event from a counter row in the inserting
 *   transaction. Write transactions run one after another, and the group commit makes a batch
 *   visible at once, so numbers become visible in order.
 * - PostgreSQL (many writers): events are inserted with no number; `tsaro_sequence_events()`,
 *   run by a sequencer on every host (server/events/feed.ts), numbers the committed ones under a
 *   transaction-scoped advisory lock, so one numbering commits before the next begins, and
 *   notifies `tsaro_events`. Unnumbered rows sit in a small partial index.
 *
 * Also `incidents.responder_location_at`: when the last `incident.responder_location` event was
 * written, so location reports are throttled per incident across hosts.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('events').addColumn('feed_seq', 'bigint').execute();
  await db.schema.alterTable('incidents').addColumn('responder_location_at', 'text').execute();
  // Events from before: numbered in the order they were made.
  await sql`
    update events set feed_seq = numbered.seq
    from (select event_id, row_number() over (order by created_at, event_id) as seq from events) as numbered
    where events.event_id = numbered.event_id
  `.execute(db);
  await sql`create unique index events_by_feed_seq on events (feed_seq)`.execute(db);

  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`create sequence event_feed_seq as bigint`.execute(db);
    await sql`select setval('event_feed_seq', coalesce(max(feed_seq), 0) + 1, false) from events`.execute(db);
    await sql`create index events_unsequenced on events (created_at, event_id) where feed_seq is null`.execute(db);
    // At most 10,000 a call (a backlog left while no host streamed is numbered over several calls).
    // The lock key (two int4, a space apart from the bigint keys of idempotency and kiosk batches).
    // Each statement of the function takes its own snapshot, so the update, after the lock, sees
    // every numbering committed before it: numbers are handed out and made visible in one order.
    await sql`
      create function tsaro_sequence_events() returns integer language plpgsql as $$
      declare
        numbered integer;
      begin
        if not exists (select 1 from events where feed_seq is null) then
          return 0;
        end if;
        perform pg_advisory_xact_lock(5318, 20);
        with pending as (
          select event_id from events where feed_seq is null order by created_at, event_id limit 10000 for update
        ), numbers as (
          select event_id, nextval('event_feed_seq') as seq from pending
        )
        update events set feed_seq = numbers.seq from numbers where events.event_id = numbers.event_id;
        get diagnostics numbered = row_count;
        if numbered > 0 then
          perform pg_notify('tsaro_events', '');
        end if;
        return numbered;
      end $$
    `.execute(db);
    return;
  }
  await sql`create table event_feed (id integer primary key, seq integer not null)`.execute(db);
  await sql`insert into event_feed (id, seq) select 1, coalesce(max(feed_seq), 0) from events`.execute(db);
  await sql`
    create trigger events_feed_seq after insert on events begin
      update event_feed set seq = seq + 1 where id = 1;
      update events set feed_seq = (select seq from event_feed where id = 1) where rowid = new.rowid;
    end
  `.execute(db);
}
