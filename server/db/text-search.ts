import { sql, type RawBuilder } from 'kysely';
import { isPostgres, type Executor } from './schema.ts';

/**
 * Free-text search over a table's text columns (issue #45), served by a text index: on
 * PostgreSQL a GIN trigram index (pg_trgm, with the tenant leading it through btree_gin), on
 * SQLite an FTS5 table with the trigram tokenizer (migration 0036). Both match a substring in
 * any of the columns, in any case. A text index needs three characters to look anything up; a
 * shorter search reads the list in its order and keeps what contains it (as before, fast when it
 * matches often, and held to the read lane's time limit when it does not).
 */
export interface SearchSpec {
  /** The columns searched. */
  columns: readonly string[];
  /** SQLite: the FTS5 table over them, whose rowid is the table's. */
  fts: string;
}

/** A search this long or longer is looked up in the text index. */
export const INDEXED_SEARCH_MIN = 3;

/** Most rows a search counts; past it the answer says `totalResultsCapped`. */
export const SEARCH_COUNT_CEILING = 10_000;

/** `%`, `_` and `\` typed by a user match themselves. */
const escapeLike = (text: string) => text.replace(/[\\%_]/g, (char) => `\\${char}`);

/** The condition, on the table (its columns unqualified), that a row holds `text` in one of the columns. */
export function matchesText(db: Executor, spec: SearchSpec, text: string): RawBuilder<boolean> {
  const indexed = [...text].length >= INDEXED_SEARCH_MIN;
  const pattern = `%${escapeLike(text)}%`;
  if (isPostgres(db) && indexed) {
    return sql<boolean>`(${sql.join(
      spec.columns.map((column) => sql`${sql.ref(column)} ilike ${pattern} escape '\\'`),
      sql` or `,
    )})`;
  }
  if (!isPostgres(db) && indexed) {
    // An FTS5 phrase is the text itself, its quotes doubled: a substring of any column.
    return sql<boolean>`rowid in (select rowid from ${sql.table(spec.fts)} where ${sql.table(spec.fts)} match ${`"${text.replace(/"/g, '""')}"`})`;
  }
  const lowered = `%${escapeLike(text.toLowerCase())}%`;
  return sql<boolean>`(${sql.join(
    spec.columns.map((column) => sql`lower(${sql.ref(column)}) like ${lowered} escape '\\'`),
    sql` or `,
  )})`;
}
