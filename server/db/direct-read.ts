import type { QueryResult } from 'kysely';
import type { Executor } from './schema.ts';

/**
 * Runs a compiled read outside Kysely's executor, or answers undefined (a write, or no separate
 * read connection): the caller then runs it through Kysely as usual.
 */
export type DirectRead = (sql: string, parameters: readonly unknown[]) => QueryResult<unknown> | undefined;

/**
 * Held on the database object itself, so it belongs to whoever made that database (one per app,
 * one per test server), never to this module. A transaction or a `withPlugin` copy is another
 * object and has none: its reads go through Kysely.
 */
const DIRECT_READ = Symbol('tsaro.directRead');
type DirectReading = { [DIRECT_READ]?: DirectRead };

/**
 * SQLite: a database's root `db` (never one of its transactions, whose reads must see their own
 * writes on the writer) may run its prepared reads straight on the query-only connection.
 * Kysely's executor around a synchronous better-sqlite3 call (connection lease, result
 * promise chain, plugins, log timing) cost more than the statement: 5 µs against 2.8 µs for
 * the key cache's revision read, which every SQLite request makes.
 */
export function allowDirectReads(db: Executor, read: DirectRead): void {
  Object.defineProperty(db, DIRECT_READ, { value: read, configurable: true });
}

export function directReadOf(db: Executor): DirectRead | undefined {
  return (db as DirectReading)[DIRECT_READ];
}
