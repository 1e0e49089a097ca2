import { sql, type Kysely } from 'kysely';

/**
 * Webhook endpoints (signing secrets encrypted at rest), the delivery queue (one job per event
 * and endpoint, written with the event), every attempt, and the server's own keys.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('endpoint_id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.organization_id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('previous_secret', 'text')
    .addColumn('previous_secret_expires_at', 'text')
    .addColumn('secret_rotated_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('deleted_at', 'text')
    .execute();
  await db.schema
    .createIndex('webhook_endpoints_by_tenant')
    .on('webhook_endpoints')
    .columns(['organization_id', 'environment', 'created_at'])
    .execute();

  await db.schema
    .createTable('webhook_jobs')
    .addColumn('job_id', 'text', (c) => c.primaryKey())
    .addColumn('endpoint_id', 'text', (c) => c.notNull().references('webhook_endpoints.endpoint_id'))
    .addColumn('event_id', 'text', (c) => c.notNull().references('events.event_id'))
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'text', (c) => c.notNull())
    .addColumn('locked_until', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_jobs_due')
    .on('webhook_jobs')
    .columns(['next_attempt_at'])
    .where(sql.ref('state'), '=', 'pending')
    .execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('delivery_id', 'text', (c) => c.primaryKey())
    .addColumn('job_id', 'text', (c) => c.notNull().references('webhook_jobs.job_id'))
    .addColumn('endpoint_id', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('error', 'text')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('attempted_at', 'text', (c) => c.notNull())
    .addColumn('next_attempt_at', 'text')
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_by_endpoint')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'attempted_at', 'delivery_id'])
    .execute();

  await db.schema
    .createTable('server_keys')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}
