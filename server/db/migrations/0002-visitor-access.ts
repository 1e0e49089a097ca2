import { sql, type Kysely } from 'kysely';

/**
 * Access codes (with their signed passes and a per-tenant change sequence for the kiosk feed),
 * access logs, the Ed25519 pass keys, and the visitor policies of an organization.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('organizations').addColumn('auto_checkout_hours', 'integer').execute();
  await db.schema.alterTable('organizations').addColumn('retention_days', 'integer').execute();

  await db.schema
    .createTable('access_codes')
    .addColumn('code_id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.organization_id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('visitor_name', 'text')
    .addColumn('visitor_phone', 'text')
    .addColumn('visitor_email', 'text')
    .addColumn('purpose', 'text')
    .addColumn('entry_point', 'text')
    .addColumn('host_user_id', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('valid_from', 'text', (c) => c.notNull())
    .addColumn('valid_until', 'text', (c) => c.notNull())
    .addColumn('max_uses', 'integer', (c) => c.notNull())
    .addColumn('use_count', 'integer', (c) => c.notNull())
    .addColumn('qr_payload', 'text', (c) => c.notNull())
    .addColumn('change_seq', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .addColumn('revoke_reason', 'text')
    .addColumn('erased_at', 'text')
    .execute();
  // A code string is unique among the tenant's live codes; a final code frees its string.
  await db.schema
    .createIndex('access_codes_live_code')
    .on('access_codes')
    .columns(['organization_id', 'environment', 'code'])
    .unique()
    .where(sql.ref('status'), '=', 'active')
    .execute();
  await db.schema.createIndex('access_codes_by_code').on('access_codes').columns(['organization_id', 'environment', 'code']).execute();
  await db.schema
    .createIndex('access_codes_by_created')
    .on('access_codes')
    .columns(['organization_id', 'environment', 'created_at', 'code_id'])
    .execute();
  await db.schema
    .createIndex('access_codes_by_change')
    .on('access_codes')
    .columns(['organization_id', 'environment', 'change_seq'])
    .execute();
  await db.schema.createIndex('access_codes_due').on('access_codes').columns(['status', 'valid_until']).execute();

  await db.schema
    .createTable('access_logs')
    .addColumn('log_id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.organization_id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('code_id', 'text', (c) => c.references('access_codes.code_id'))
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('visitor_name', 'text')
    .addColumn('visitor_phone', 'text')
    .addColumn('entry_point', 'text')
    .addColumn('host_user_id', 'text')
    .addColumn('notes', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('checked_in_at', 'text', (c) => c.notNull())
    .addColumn('checked_out_at', 'text')
    .addColumn('checkout_notes', 'text')
    .addColumn('recorded_by', 'text')
    .addColumn('auto_checked_out', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('erased_at', 'text')
    .execute();
  await db.schema
    .createIndex('access_logs_by_checkin')
    .on('access_logs')
    .columns(['organization_id', 'environment', 'checked_in_at', 'log_id'])
    .execute();
  await db.schema.createIndex('access_logs_open').on('access_logs').columns(['status', 'checked_in_at']).execute();

  await db.schema
    .createTable('pass_keys')
    .addColumn('kid', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.organization_id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('public_key', 'text', (c) => c.notNull())
    .addColumn('private_key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('pass_keys_one_per_tenant').on('pass_keys').columns(['organization_id', 'environment']).unique().execute();

  // One row per tenant: taking the next number locks the row until commit, so numbers are
  // handed out in commit order and a feed cursor never skips a change committed late.
  await db.schema
    .createTable('feed_counters')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('last_seq', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('feed_counters_pk', ['organization_id', 'environment'])
    .execute();
}
