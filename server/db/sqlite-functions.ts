import type SqliteDatabase from 'better-sqlite3';

/**
 * Functions every SQLite connection of the server has (the writer, its reader and the read
 * workers), registered as each opens:
 * - `tsaro_fold(text)`: the text in lower case as JavaScript folds it (Unicode's, not SQLite's
 *   ASCII-only `lower`), so a search that reads the rows (`matchesText`'s `scan`, and searches
 *   too short for the text index) finds "Émeka" for "émeka" as the FTS5 text index does.
 */
export function addSqliteFunctions(db: SqliteDatabase.Database): void {
  db.function('tsaro_fold', { deterministic: true }, (text: unknown) => (text === null || text === undefined ? null : String(text).toLowerCase()));
}
