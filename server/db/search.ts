import { sql, type RawBuilder } from 'kysely';

/** `%` and `_` typed by a user match themselves. */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

/** Case-insensitive "contains", the same on SQLite and PostgreSQL (explicit ESCAPE: SQLite has no default). */
export function containsText(column: string, text: string): RawBuilder<boolean> {
  return sql<boolean>`lower(${sql.ref(column)}) like ${`%${escapeLike(text.toLowerCase())}%`} escape '\\'`;
}
