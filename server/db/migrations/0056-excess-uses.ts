import type { Kysely } from 'kysely';

/**
 * Excess uses (issue #49): a visit a gate let in offline with a code the server then refused (its
 * last use taken at another gate, revoked meanwhile) is recorded as a walk-in carrying what the
 * gate did (`admitted_offline`, JSON: the code, when it was scanned, what the server said), so the
 * console can warn and `visitor.excess_use` reports it. Earlier visits have none.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('access_logs').addColumn('admitted_offline', 'text').execute();
}
