import { PostgresAdapter, sql, type Kysely } from 'kysely';
import { createIndexSql, ONLINE_FROM_ROWS, type ListIndex } from './0036-reads-at-scale.ts';

/** A code's visits by status: what a validation asking `already_inside: hold` reads. */
export const ACCESS_LOGS_BY_CODE: ListIndex = { name: 'access_logs_by_code', table: 'access_logs', columns: ['code_id', 'status'] };

/**
 * Already inside (issue #49): a check-in the guard let in although the code's holder had an
 * open visit at the site records it (`already_inside_override`, 1), and a validation can ask
 * whether the holder is inside before it spends a use: the code's open visits, by code.
 *
 * The index is built here, except on PostgreSQL for a big table (`ONLINE_FROM_ROWS` visits or
 * more, an upgrade of a year's database): there it is built after the hosts serve, `CREATE INDEX
 * CONCURRENTLY` (server/db/online-indexes.ts), as 0036's are, since building it here held every
 * host at start while it read every visit (issue #45). Until it is there, a validation with
 * `hold` finds the open visit without it: slower, never wrong. SQLite builds it here, in one
 * statement that holds the database's one writer (docs/benchmarks.md, "A year of data").
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('access_logs')
    .addColumn('already_inside_override', 'integer', (column) => column.notNull().defaultTo(0))
    .execute();
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  if (postgres) {
    const { rows } = await sql<{ n: number | string }>`select count(*) as n from (select 1 from access_logs limit ${ONLINE_FROM_ROWS}) s`.execute(db);
    if (Number(rows[0]!.n) >= ONLINE_FROM_ROWS) return;
  }
  await sql.raw(createIndexSql(ACCESS_LOGS_BY_CODE, postgres, false)).execute(db);
}
