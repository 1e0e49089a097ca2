import type { Kysely } from 'kysely';

/**
 * Organizations, API keys, incidents with their timeline, the event log (the outbox webhooks
 * read) and idempotency records. Written once: later changes are new migrations.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('organizations')
    .addColumn('organization_id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('plan', 'text', (c) => c.notNull())
    .addColumn('subscription_status', 'text', (c) => c.notNull())
    .addColumn('code_prefix', 'text', (c) => c.notNull().unique())
    .addColumn('rate_limit_per_minute', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('key_id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.organization_id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('secret_hash', 'text', (c) => c.notNull().unique())
    .addColumn('secret_hint', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema
    .createIndex('api_keys_by_org')
    .on('api_keys')
    .columns(['organization_id', 'environment', 'created_at'])
    .execute();

  await db.schema
    .createTable('incidents')
    .addColumn('incident_id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.organization_id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('idempotency_key', 'text')
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('severity', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('is_drill', 'integer', (c) => c.notNull())
    .addColumn('subject_name', 'text', (c) => c.notNull())
    .addColumn('subject_phone', 'text')
    .addColumn('subject_email', 'text')
    .addColumn('subject_reference', 'text')
    .addColumn('subject_metadata', 'text', (c) => c.notNull())
    .addColumn('longitude', 'double precision', (c) => c.notNull())
    .addColumn('latitude', 'double precision', (c) => c.notNull())
    .addColumn('address', 'text')
    .addColumn('landmark', 'text')
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('dispatch_deadline', 'text', (c) => c.notNull())
    .addColumn('escalation_deadline', 'text', (c) => c.notNull())
    .addColumn('assigned_at', 'text')
    .addColumn('on_scene_at', 'text')
    .addColumn('resolution_outcome', 'text')
    .addColumn('resolution_notes', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('resolved_at', 'text')
    .addColumn('cancelled_at', 'text')
    .execute();
  await db.schema
    .createIndex('incidents_by_org_created')
    .on('incidents')
    .columns(['organization_id', 'environment', 'created_at', 'incident_id'])
    .execute();
  await db.schema
    .createIndex('incidents_by_idempotency_key')
    .on('incidents')
    .columns(['organization_id', 'environment', 'idempotency_key'])
    .unique()
    .where('idempotency_key', 'is not', null)
    .execute();

  await db.schema
    .createTable('incident_timeline')
    .addColumn('incident_id', 'text', (c) => c.notNull().references('incidents.incident_id'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('timestamp', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('incident_timeline_pk', ['incident_id', 'seq'])
    .execute();

  await db.schema
    .createTable('events')
    .addColumn('event_id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.organization_id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('resource_id', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('events_by_org_created')
    .on('events')
    .columns(['organization_id', 'environment', 'created_at', 'event_id'])
    .execute();

  await db.schema
    .createTable('idempotency_requests')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('idempotency_key', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('locked_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_requests_pk', ['organization_id', 'environment', 'idempotency_key'])
    .execute();
  await db.schema.createIndex('idempotency_requests_by_age').on('idempotency_requests').column('created_at').execute();
}
