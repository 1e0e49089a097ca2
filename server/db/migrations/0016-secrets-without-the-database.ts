import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * What the sealing key leaving the database needs (server/secrets/):
 *
 * - `api_keys.expires_at`: a rolled key answers until then. It joins the columns whose change
 *   bumps the auth revision (migration 0014), so a host's key cache hears of a roll at once.
 * - `pass_keys.retired_at` and `accept_until`: a tenant may hold several pass-signing keys, one
 *   signing (not retired) and older ones kiosks still accept until their last pass expires. The
 *   one-per-tenant index becomes one signing key per tenant.
 * - `webhook_endpoints.secret_rotation_due`: the secret may be known to whoever copied the
 *   database while its sealing key was kept in it; the partner should rotate it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_keys').addColumn('expires_at', 'text').execute();
  await db.schema.alterTable('pass_keys').addColumn('retired_at', 'text').execute();
  await db.schema.alterTable('pass_keys').addColumn('accept_until', 'text').execute();
  await db.schema.alterTable('webhook_endpoints').addColumn('secret_rotation_due', 'integer', (c) => c.notNull().defaultTo(0)).execute();

  await db.schema.dropIndex('pass_keys_one_per_tenant').execute();
  await db.schema
    .createIndex('pass_keys_one_signing_per_tenant')
    .on('pass_keys')
    .columns(['organization_id', 'environment'])
    .unique()
    .where(sql.ref('retired_at'), 'is', null)
    .execute();

  const keyColumns = sql.raw('revoked_at, expires_at, scopes, secret_hash, environment, organization_id');
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`drop trigger auth_revision_keys on api_keys`.execute(db);
    await sql`create trigger auth_revision_keys after update of ${keyColumns} or delete on api_keys for each statement execute function tsaro_auth_changed()`.execute(db);
    return;
  }
  await sql`drop trigger auth_revision_keys`.execute(db);
  await sql`create trigger auth_revision_keys after update of ${keyColumns} on api_keys begin update auth_revision set revision = revision + 1 where id = 1; end`.execute(db);
}
