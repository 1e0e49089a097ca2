import type { Kysely } from 'kysely';

/**
 * Two-step sign-in by policy (issue #32): the roles besides owner and admin (always) whose
 * people must use a second step, per organization, as a JSON array. Null is the default,
 * operators only: they cancel SOS incidents and see the subjects' phones.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('organizations').addColumn('two_step_roles', 'text').execute();
}
