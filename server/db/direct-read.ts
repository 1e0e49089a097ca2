import type { QueryResult } from 'kysely';
import type { Executor } from './schema.ts';

/**
 * Runs a compiled read outside Kysely's executor, or answers undefined (a write, or no separate
 * read connection): the caller then runs it through Kysely as usual.
 */
export type DirectRead = (sql: string, parameters: readonly unknown[]) => QueryResult<unknown> | undefined;

const reads = new WeakMap<object, DirectRead>();

/**
 * SQLite: a database's root `db` (never one of its transactions, whose reads must see their own
 * writes on the writer) may run its prepared reads straight on the query-only connection.
 * Kysely's executor around a synchronous better-sqlite3 call (connection lease, result
 * promise chain, plugins, log timing) cost more than the statement: 5 µs against 2.8 µs for
 * the key cache's revision read, which every SQLite request makes.
 */
export function allowDirectReads(db: Executor, read: DirectRead): void {
  reads.set(db, read);
}

export function directReadOf(db: Executor): DirectRead | undefined {
  return reads.get(db);
}
