import { CompiledQuery, type QueryResult } from 'kysely';
import { isPostgres, type Executor } from './schema.ts';

/**
 * What server/db/postgres-pool.ts recognises as several statements to send at once: the SQL of
 * the carrier query, whose one parameter is the list of statements.
 */
export const PIPELINE = '/* tsaro:pipeline */';

export interface PipelinedStatement {
  sql: string;
  parameters: readonly unknown[];
}

/** The carrier's parameters, when `sql` is a pipeline (postgres-pool.ts). */
export function pipelinedStatements(sql: string, parameters: readonly unknown[]): readonly PipelinedStatement[] | undefined {
  return sql === PIPELINE ? (parameters[0] as PipelinedStatement[]) : undefined;
}

/**
 * Several statements of one transaction sent at once: on PostgreSQL they leave in one write
 * (with the transaction's held-back BEGIN, when they are its first) and their answers come back
 * together, one flight for all, each answered as if sent alone. Kysely runs a transaction's
 * statements one after another (it awaits each before it sends the next), so statements a
 * caller starts together would otherwise still cost a flight each.
 *
 * If any fails, this fails with the first failure once all have answered; in a transaction, the
 * statements after a failed one fail too (the transaction is aborted). On SQLite, where a
 * statement is a call into the process, they simply run in order.
 */
export async function pipelined<O>(db: Executor, queries: ReadonlyArray<CompiledQuery<O>>): Promise<Array<QueryResult<O>>> {
  if (queries.length === 1 || !isPostgres(db)) {
    const results: Array<QueryResult<O>> = [];
    for (const query of queries) results.push(await db.executeQuery(query));
    return results;
  }
  const statements: PipelinedStatement[] = queries.map((query) => ({ sql: query.sql, parameters: query.parameters }));
  const carried = await db.executeQuery<QueryResult<O>>(CompiledQuery.raw(PIPELINE, [statements]));
  return carried.rows;
}
