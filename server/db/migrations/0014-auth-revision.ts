import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * The API-key cache (server/auth/key-cache.ts) must never serve a revoked key. Every change that
 * can refuse a key - its revocation, scopes or secret, its organization's plan or subscription,
 * a deletion - bumps one counter row by trigger, in the writer's own transaction, whoever the
 * writer is (this server, another host, the CLI). On PostgreSQL the trigger also sends
 * NOTIFY tsaro_auth, which hosts LISTEN to. `last_used_at` is not in the list: the once-a-minute
 * touch must not empty the cache.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('auth_revision')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('revision', 'integer', (c) => c.notNull())
    .execute();
  await sql`insert into auth_revision (id, revision) values (1, 1)`.execute(db);
  const keyColumns = sql.raw('revoked_at, scopes, secret_hash, environment, organization_id');

  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`
      create function tsaro_auth_changed() returns trigger language plpgsql as $$
      begin
        update auth_revision set revision = revision + 1 where id = 1;
        perform pg_notify('tsaro_auth', '');
        return null;
      end $$
    `.execute(db);
    await sql`create trigger auth_revision_keys after update of ${keyColumns} or delete on api_keys for each statement execute function tsaro_auth_changed()`.execute(db);
    await sql`create trigger auth_revision_organizations after update or delete on organizations for each statement execute function tsaro_auth_changed()`.execute(db);
    return;
  }
  const bump = sql.raw('begin update auth_revision set revision = revision + 1 where id = 1; end');
  await sql`create trigger auth_revision_keys after update of ${keyColumns} on api_keys ${bump}`.execute(db);
  await sql`create trigger auth_revision_keys_deleted after delete on api_keys ${bump}`.execute(db);
  await sql`create trigger auth_revision_organizations after update on organizations ${bump}`.execute(db);
  await sql`create trigger auth_revision_organizations_deleted after delete on organizations ${bump}`.execute(db);
}
