import type { Kysely } from 'kysely';

/**
 * Manual dispatch (issue #47): the controller who owns an incident (taken from the queue), and
 * on each offer who made it (null: the engine) and, when declined, why. A decliner may be asked
 * again in a later round: the offer's row is reopened (dispatch_offers_once still holds one row
 * per responder and incident; its history is the incident's timeline).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const column of ['controller_id', 'controller_name', 'controller_taken_at'] as const) {
    await db.schema.alterTable('incidents').addColumn(column, 'text').execute();
  }
  await db.schema.alterTable('dispatch_offers').addColumn('offered_by', 'text').execute();
  await db.schema.alterTable('dispatch_offers').addColumn('decline_reason', 'text').execute();
  // The queue: every live active incident, across organizations.
  await db.schema.createIndex('incidents_live_by_status').on('incidents').columns(['environment', 'status', 'created_at']).execute();
}
