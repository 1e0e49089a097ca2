import { sql, type RawBuilder } from 'kysely';
import { LIST_INDEXES, searchedText } from './migrations/0036-reads-at-scale.ts';
import { isPostgres, type Db, type Executor } from './schema.ts';
import type { Job } from '../jobs/runner.ts';

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

/** What joins the searched columns in PostgreSQL's text index (`searchedText`). */
const TEXT_JOINER = String.fromCharCode(31);

/** A search this long or longer is looked up in the text index. */
export const INDEXED_SEARCH_MIN = 3;

/**
 * How a search looks its text up: `index`, in the table's text index; `scan`, by reading the list's
 * own rows (those of its tenant and field filters) and keeping those that hold the text, for a list
 * of few rows (`searchWay` in server/db/tallies.ts). The two agree: both match a substring of any
 * column in any case (SQLite folds case with `tsaro_fold`, server/db/sqlite-functions.ts, as its
 * text index folds it; PostgreSQL's `lower` is Unicode's).
 */
export type SearchWay = 'index' | 'scan';

let scanRows = 5_000;

/** DATABASE_SEARCH_SCAN_ROWS: set once at start-up (server/server.ts). */
export function setSearchScanRows(rows: number): void {
  scanRows = rows;
}

/** Lists of this many rows or fewer (before their search) are searched by reading them; 0: none. */
export const searchScanRows = (): number => scanRows;

/** Most rows a search counts; past it the answer says `totalResultsCapped`. */
export const SEARCH_COUNT_CEILING = 10_000;

/** `%`, `_` and `\` typed by a user match themselves. */
const escapeLike = (text: string) => text.replace(/[\\%_]/g, (char) => `\\${char}`);

/** The condition, on the table (its columns unqualified), that a row holds `text` in one of the columns. */
export function matchesText(db: Executor, spec: SearchSpec, text: string, way: SearchWay = 'index'): RawBuilder<boolean> {
  const indexed = way === 'index' && [...text].length >= INDEXED_SEARCH_MIN;
  const pattern = `%${escapeLike(text)}%`;
  if (isPostgres(db) && indexed) {
    // One trigram index over the columns joined (migration 0063): the tenant's entries and the
    // text's trigrams are read once. A text holding the joiner, chr(31), is matched column by column.
    if (!text.includes(TEXT_JOINER)) return sql<boolean>`${sql.raw(searchedText(spec.columns))} ilike ${pattern} escape '\\'`;
    return sql<boolean>`(${sql.join(
      spec.columns.map((column) => sql`${sql.ref(column)} ilike ${pattern} escape '\\'`),
      sql` or `,
    )})`;
  }
  if (!isPostgres(db) && indexed) {
    // An FTS5 phrase is the text itself, its quotes doubled: a substring of any column.
    return sql<boolean>`rowid in (select rowid from ${sql.table(spec.fts)} where ${sql.table(spec.fts)} match ${`"${text.replace(/"/g, '""')}"`})`;
  }
  if (!isPostgres(db)) {
    // SQLite's lower() folds ASCII only; tsaro_fold folds as JavaScript's toLowerCase, as FTS5 does.
    const folded = text.toLowerCase();
    return sql<boolean>`(${sql.join(
      spec.columns.map((column) => sql`instr(tsaro_fold(${sql.ref(column)}), ${folded}) > 0`),
      sql` or `,
    )})`;
  }
  const lowered = `%${escapeLike(text.toLowerCase())}%`;
  return sql<boolean>`(${sql.join(
    spec.columns.map((column) => sql`lower(${sql.ref(column)}) like ${lowered} escape '\\'`),
    sql` or `,
  )})`;
}

/** PostgreSQL's text indexes (GIN, migration 0036): their pending lists are kept short by `textIndexJob`. */
const TEXT_INDEXES = LIST_INDEXES.filter((index) => index.gin).map((index) => index.name);

/** How often the text indexes' pending lists are merged in. */
export const TEXT_INDEX_CLEAN_MS = 2000;

/**
 * Merges the new rows waiting in each text index's pending list into the index (PostgreSQL's
 * `gin_clean_pending_list`), in the background; answers the pages merged. A GIN index takes new
 * entries into an unsorted pending list (`fastupdate`) that every search reads in full, twice for a
 * search of two columns, until it reaches 4 MB, and then the insert that crosses it (an SOS, a
 * validation's check-in) merges it all. Measured on the generated year after the bench's SOSs
 * (issue #45): 471 pending pages, and an incidents search's count took 88-134 ms and 4,460 buffers;
 * merged, 4-5 ms and 1,072. Merged every 2 s, the list holds seconds of rows; inserts are not held
 * by it (they wait for no merge, and one that finds the list too long leaves it to the merge under
 * way). SQLite's FTS5 tables have no such list. An index not built yet, or not this role's to
 * merge (42501), is skipped.
 */
export function textIndexJob(db: Db, options: { timed: boolean }): Job<number> {
  const notOurs = new Set<string>();
  return {
    name: 'text-index-pending',
    everyMs: TEXT_INDEX_CLEAN_MS,
    timed: options.timed,
    async runOnce() {
      let merged = 0;
      for (const name of TEXT_INDEXES) {
        if (notOurs.has(name)) continue;
        try {
          const { rows } = await sql<{ pages: number | string | null }>`select gin_clean_pending_list(c.oid) as pages from pg_class c join pg_index i on i.indexrelid = c.oid where c.relname = ${name} and i.indisvalid and c.relnamespace = current_schema()::regnamespace`.execute(db);
          merged += Number(rows[0]?.pages ?? 0);
        } catch (err) {
          if ((err as { code?: string }).code !== '42501') throw err;
          notOurs.add(name);
        }
      }
      return merged;
    },
    failure: 'merging the text indexes\' pending rows failed; searches read them meanwhile, and the next run retries',
  };
}
