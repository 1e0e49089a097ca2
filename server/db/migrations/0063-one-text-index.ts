import { PostgresAdapter, sql, type Kysely } from 'kysely';
import { createIndexSql, LIST_INDEXES, ONLINE_FROM_ROWS } from './0036-reads-at-scale.ts';

/**
 * PostgreSQL's text indexes of visits, incidents and codes (0036: `<table>_search`, the tenant
 * and a trigram column per searched column) become one trigram column of the searched columns
 * joined (`<table>_text`, 0036's `searchedText`). A search was an OR of one ILIKE per column,
 * two bitmap scans of the same index, each reading the tenant's btree_gin entries and the text's
 * trigrams again; it is now one ILIKE of the joined text, one scan (issue #45: a full name's
 * count read 485 buffers, now 141, on a generated year of 200,000 visits). The same rows match:
 * the joiner is a character no search holds.
 *
 * The old indexes go here; the new ones are built here for a small table and online after the
 * hosts serve for a big one (server/db/online-indexes.ts), as 0036's were. Until then a search
 * reads without its index: slower, never wrong. SQLite's FTS5 tables are unchanged.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  for (const table of ['access_logs', 'incidents', 'access_codes']) {
    await sql.raw(`drop index if exists ${table}_search`).execute(db);
    const index = LIST_INDEXES.find((candidate) => candidate.name === `${table}_text`)!;
    const { rows } = await sql<{ n: number | string }>`select count(*) as n from (select 1 from ${sql.table(table)} limit ${ONLINE_FROM_ROWS}) s`.execute(db);
    if (Number(rows[0]!.n) < ONLINE_FROM_ROWS) await sql.raw(createIndexSql(index, true, false)).execute(db);
  }
}
