import { sql, type Kysely } from 'kysely';

/**
 * Who made each key (issue #32): keys outlive their maker, and a key never reaches further than
 * the person who made it, so the key keeps its maker's id (`per_…`, `key_…`, or `operator` for the
 * server's CLI), a label to show after they are gone, and the maker's role at the time. Keys a
 * developer made with the `admin` scope before the grant rule stay; `reviewed_at`/`reviewed_by`
 * record an owner keeping one.
 *
 * Keys made before this migration take their maker from the audit log's `createApiKey` entry,
 * with the person's role now (the role at the time was not recorded; a person since removed
 * leaves it unknown). A key older than the audit log, or made by a roll (whose entry names the old
 * key), keeps an unknown maker.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const column of ['created_by', 'created_by_label', 'created_by_role', 'reviewed_at', 'reviewed_by']) await db.schema.alterTable('api_keys').addColumn(column, 'text').execute();
  const made = sql`(select a.actor_id from audit_log a where a.action = 'createApiKey' and a.resource_id = api_keys.key_id and a.organization_id = api_keys.organization_id order by a.created_at limit 1)`;
  const label = sql`(select a.actor_label from audit_log a where a.action = 'createApiKey' and a.resource_id = api_keys.key_id and a.organization_id = api_keys.organization_id order by a.created_at limit 1)`;
  await sql`update api_keys set created_by = ${made}, created_by_label = ${label}`.execute(db);
  await sql`
    update api_keys set created_by_role = (select m.role from memberships m where m.person_id = api_keys.created_by and m.organization_id = api_keys.organization_id)
    where created_by like 'per_%'
  `.execute(db);
}
