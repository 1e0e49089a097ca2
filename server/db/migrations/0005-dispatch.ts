import type { Kysely } from 'kysely';

/**
 * Dispatch: who an incident is offered to and who took it, the incident's assignment and its
 * next automatic step (a simulated responder's move), and verified incidents for the threat
 * engine (place, time, kind and outcome only: never subject data).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [column, type] of [
    ['responder_id', 'text'],
    ['responder_name', 'text'],
    ['responder_phone', 'text'],
    ['responder_latitude', 'double precision'],
    ['responder_longitude', 'double precision'],
    ['eta_minutes', 'integer'],
    ['next_step_at', 'text'],
  ] as const) {
    await db.schema.alterTable('incidents').addColumn(column, type).execute();
  }
  await db.schema.alterTable('incidents').addColumn('dispatch_round', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.createIndex('incidents_by_status_deadline').on('incidents').columns(['status', 'dispatch_deadline']).execute();
  await db.schema.createIndex('incidents_by_next_step').on('incidents').columns(['next_step_at']).execute();

  await db.schema
    .createTable('dispatch_offers')
    .addColumn('offer_id', 'text', (c) => c.primaryKey())
    .addColumn('incident_id', 'text', (c) => c.notNull().references('incidents.incident_id'))
    .addColumn('responder_id', 'text', (c) => c.notNull().references('responders.responder_id'))
    .addColumn('round', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('distance_km', 'double precision', (c) => c.notNull())
    .addColumn('offered_at', 'text', (c) => c.notNull())
    .addColumn('answered_at', 'text')
    .addUniqueConstraint('dispatch_offers_once', ['incident_id', 'responder_id'])
    .execute();
  await db.schema.createIndex('dispatch_offers_by_responder').on('dispatch_offers').columns(['responder_id', 'status']).execute();

  await db.schema
    .createTable('verified_incidents')
    .addColumn('incident_id', 'text', (c) => c.primaryKey())
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('severity', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('latitude', 'double precision', (c) => c.notNull())
    .addColumn('longitude', 'double precision', (c) => c.notNull())
    .addColumn('occurred_at', 'text', (c) => c.notNull())
    .addColumn('resolved_at', 'text', (c) => c.notNull())
    .execute();
}
