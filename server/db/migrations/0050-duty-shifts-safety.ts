import type { Kysely } from 'kysely';

/**
 * Duty (issue #47): a responder's statuses and their age, the areas a network admin draws and the
 * shifts planned in them, the alerts staff see, and on-scene safety check-ins.
 * - responders: `duty_since` (when they last went on or off duty), and out of service with a
 *   reason, since when and by whom (the responder, or a supervisor's staff id).
 * - service_areas: a named circle or polygon (GeoJSON-ish JSON in `shape`).
 * - shifts: a responder in an area from a start hour to an end hour, every day.
 * - staff_alerts: what staff must look at; `open_key` is set while the alert is open (one open
 *   alert per kind, responder and incident across hosts: unique), null once cleared.
 * - safety_checks: per incident on scene, when the next "I'm OK" is due, how many were missed,
 *   and when the case was raised to the top of the queue (two missed, or the responder's panic).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const column of ['duty_since', 'out_of_service_reason', 'out_of_service_at', 'out_of_service_by'] as const) {
    await db.schema.alterTable('responders').addColumn(column, 'text').execute();
  }
  await db.schema
    .createTable('service_areas')
    .addColumn('area_id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('shape', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('shifts')
    .addColumn('shift_id', 'text', (c) => c.primaryKey())
    .addColumn('responder_id', 'text', (c) => c.notNull().references('responders.responder_id'))
    .addColumn('area_id', 'text', (c) => c.notNull().references('service_areas.area_id'))
    .addColumn('start_hour', 'integer', (c) => c.notNull())
    .addColumn('end_hour', 'integer', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('shifts_of_area').on('shifts').column('area_id').execute();
  await db.schema.createIndex('shifts_of_responder').on('shifts').column('responder_id').execute();
  await db.schema
    .createTable('staff_alerts')
    .addColumn('alert_id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('responder_id', 'text', (c) => c.notNull())
    .addColumn('incident_id', 'text')
    .addColumn('organization_id', 'text')
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('raised_at', 'text', (c) => c.notNull())
    .addColumn('cleared_at', 'text')
    .addColumn('open_key', 'text', (c) => c.unique())
    .execute();
  await db.schema.createIndex('staff_alerts_by_time').on('staff_alerts').columns(['cleared_at', 'raised_at']).execute();
  await db.schema
    .createTable('safety_checks')
    .addColumn('incident_id', 'text', (c) => c.primaryKey())
    .addColumn('responder_id', 'text', (c) => c.notNull())
    .addColumn('due_at', 'text', (c) => c.notNull())
    .addColumn('missed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_ok_at', 'text')
    .addColumn('raised_at', 'text')
    .addColumn('raised_why', 'text')
    .execute();
  await db.schema.createIndex('safety_checks_due').on('safety_checks').column('due_at').execute();
}
