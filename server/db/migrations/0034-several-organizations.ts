import type { Kysely } from 'kysely';

/**
 * One person, several organizations (issue #34): a security company's control-room operator is
 * a member of each estate company they serve, with one sign-in. Migration 0024 kept a person to
 * one membership with a unique index; it goes, and an index by person (their organizations, in
 * the order they joined) stands in its place.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('memberships_one_per_person').execute();
  await db.schema.createIndex('memberships_by_person').on('memberships').columns(['person_id', 'created_at']).execute();
}
