import type { Kysely } from 'kysely';

/**
 * Shipped threat data reaches every database, not only an empty one:
 *
 * - `threat_data_files` records each shipped file by name and content hash once it is loaded,
 *   so a new version of a file (a new release of the project) loads once on the next start,
 *   whatever else the store holds, and the same version never loads twice.
 * - `threat_revision.rebuild_revision`: an import that replaces events already stored (a newer
 *   UCDP release of the same event) sets it to its revision. The in-memory index only ever
 *   appends, so a host that sees it above what it has loaded reads the whole table again.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('threat_data_files')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('loaded_at', 'text', (c) => c.notNull())
    .addColumn('imported', 'integer', (c) => c.notNull())
    .addColumn('replaced', 'integer', (c) => c.notNull())
    .addColumn('skipped', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('threat_data_files_pk', ['name', 'sha256'])
    .execute();
  await db.schema.alterTable('threat_revision').addColumn('rebuild_revision', 'integer', (c) => c.notNull().defaultTo(0)).execute();
}
