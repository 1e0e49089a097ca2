import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * The waiting phones' bell (issue #47): on PostgreSQL, every offer made pending (inserted, or a
 * declined one reopened) NOTIFYs `tsaro_offers` with its responder's id when its transaction
 * commits, so every host's one listener (server/responders/offer-bell.ts) wakes the long polls
 * waiting for that responder at once, whichever host made the offer. SQLite is one host: its
 * bell is rung in the process, and needs nothing here.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`
    create function tsaro_offer_made() returns trigger language plpgsql as $$
    begin
      if new.status = 'pending' then
        perform pg_notify('tsaro_offers', new.responder_id);
      end if;
      return null;
    end $$
  `.execute(db);
  await sql`create trigger dispatch_offers_bell after insert or update of status, offer_id on dispatch_offers for each row execute function tsaro_offer_made()`.execute(db);
}
