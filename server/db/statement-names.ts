/**
 * Names for the statements a PostgreSQL pool runs, so that each connection parses and plans a
 * statement once (a named prepared statement of the extended protocol) and from then on only
 * binds and executes it.
 *
 * Why: node-postgres sends an unnamed statement's text with every run, and PostgreSQL parses
 * and plans it every time. On these machines the database shares the server's two cores, and
 * naming the hot statements made `POST /incidents` 40-50 % faster and a validation 15-45 %
 * (docs/benchmarks.md). The SQL is the same text Kysely compiled: only the protocol changes.
 *
 * - Only statements with parameters (so, from a template: the same text runs again with other
 *   values) that read or change rows are named; transaction control, DDL and one-off text are not.
 * - At most `capacity` texts get a name per pool; the rest run unnamed as before. A connection
 *   prepares a named statement the first time it runs it and keeps it for its life (pg-pool closes
 *   idle connections, and a lost one takes its statements with it).
 * - A table whose row shape changed under a prepared `select *` (a migration run by another
 *   host) makes PostgreSQL refuse the statement once ("cached plan must not change result
 *   type"). `renamed` gives that text a fresh name, which every connection parses anew.
 * - Behind PgBouncer in transaction mode, prepared statements need PgBouncer 1.21 or later with
 *   `max_prepared_statements` set (docs/operations.md).
 */
export class StatementNames {
  readonly #names = new Map<string, string>();
  #issued = 0;

  constructor(readonly capacity = 2_000) {}

  /** The name to run `sql` under, or undefined to run it unnamed. */
  nameFor(sql: string, parameterCount: number): string | undefined {
    const known = this.#names.get(sql);
    if (known) return known;
    if (parameterCount === 0 || this.#names.size >= this.capacity || !ROW_STATEMENT.test(sql)) return undefined;
    return this.#issue(sql);
  }

  /** A new name for `sql`, after PostgreSQL refused the prepared one. Names are never reused. */
  renamed(sql: string): string {
    this.#names.delete(sql);
    return this.#issue(sql);
  }

  #issue(sql: string): string {
    const name = `tsaro_${++this.#issued}`;
    this.#names.set(sql, name);
    return name;
  }
}

const ROW_STATEMENT = /^\s*(select|insert|update|delete|with)\b/i;

/** PostgreSQL refused a prepared statement because a table it reads changed shape (0A000). */
export function isStalePreparedStatement(err: unknown): boolean {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  return code === '0A000' && /cached plan must not change result type/.test(String(message));
}
