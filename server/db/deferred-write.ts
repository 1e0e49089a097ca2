import { sql } from 'kysely';

/**
 * A write whose answer its transaction does not need: an insert or update that either does
 * exactly what it says or fails the whole transaction (no RETURNING, no count read back, no
 * conflict clause that could make it do nothing).
 *
 * On PostgreSQL (server/db/postgres-pool.ts) such a statement inside a transaction is written to
 * the connection and not waited for: the transaction's next statement follows it in the same
 * round trip, and the COMMIT after a last deferred write rides along too. If it failed, the
 * statement after it reports its error (PostgreSQL answers that one, and the COMMIT, as part of
 * an aborted transaction), so nothing is committed and the caller fails as before. Outside a
 * transaction, inside a savepoint, and on SQLite (where a statement is a function call, not a
 * round trip) it runs and is waited for like any other.
 *
 * Marked by a trailing SQL comment, which both engines ignore: `preparedQuery(..., { deferred:
 * true })`, or `deferredWrite` at the end of a query (`.modifyEnd(deferredWrite)`, or last in a
 * `sql` template).
 */
export const DEFERRED_WRITE = ' /* tsaro:deferred */';

/** The mark, for a query built with Kysely's query builder or `sql` template. */
export const deferredWrite = sql.raw(DEFERRED_WRITE);

export const isDeferredWrite = (sql: string): boolean => sql.endsWith(DEFERRED_WRITE);
