import type { Kysely } from 'kysely';

/**
 * The service's own staff (issue #47): controllers, supervisors and network admins, in a realm
 * apart from partners' people. Their accounts, invitations and sessions are tables of their own
 * (a staff session never reads as a partner's, nor the reverse), and the service audit log
 * records every staff action and every opening of a subject's details.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('staff')
    .addColumn('staff_id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text')
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text')
    .addColumn('totp_secret', 'text')
    .addColumn('totp_pending_secret', 'text')
    .addColumn('totp_enabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('totp_last_step', 'bigint')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('last_active_at', 'text')
    .execute();
  await db.schema
    .createTable('staff_invitations')
    .addColumn('invitation_id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('invited_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema
    .createTable('staff_sessions')
    .addColumn('session_id', 'text', (c) => c.primaryKey())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('staff_id', 'text', (c) => c.notNull().references('staff.staff_id'))
    .addColumn('stage', 'text', (c) => c.notNull())
    .addColumn('second_step_at', 'text')
    .addColumn('ip', 'text')
    .addColumn('user_agent', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_active_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('ended_at', 'text')
    .execute();
  await db.schema.createIndex('staff_sessions_of_staff').on('staff_sessions').columns(['staff_id', 'ended_at']).execute();
  await db.schema
    .createTable('service_audit_log')
    .addColumn('entry_id', 'text', (c) => c.primaryKey())
    .addColumn('staff_id', 'text')
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('subject_type', 'text')
    .addColumn('subject_id', 'text')
    .addColumn('organization_id', 'text')
    .addColumn('detail', 'text')
    .addColumn('at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('service_audit_log_by_time').on('service_audit_log').columns(['at', 'entry_id']).execute();
  await db.schema.createIndex('service_audit_log_by_subject').on('service_audit_log').columns(['subject_id', 'at']).execute();
}
