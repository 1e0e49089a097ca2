import type { Kysely } from 'kysely';

/**
 * The responder roster (issue #47): a profile (skills, vehicle and plate, base, ID or licence
 * number with its expiry) and a `standing`: applied, verified, suspended (with why), retired,
 * with who changed it and when. Responders already on the network were added by the operator,
 * the network's admin: they are verified; a deactivated one is retired.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('responders').addColumn('standing', 'text', (c) => c.notNull().defaultTo('verified')).execute();
  for (const column of ['standing_reason', 'standing_by', 'standing_at', 'vehicle', 'vehicle_plate', 'base', 'licence_number', 'licence_expires'] as const) {
    await db.schema.alterTable('responders').addColumn(column, 'text').execute();
  }
  await db.schema.alterTable('responders').addColumn('skills', 'text', (c) => c.notNull().defaultTo('[]')).execute();
  await db.updateTable('responders' as never).set({ standing: 'retired' } as never).where('status' as never, '=', 'deactivated' as never).execute();
  await db.schema.createIndex('responders_by_standing').on('responders').columns(['standing', 'environment']).execute();
}
