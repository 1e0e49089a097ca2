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
 *   host) makes PostgreSQL refuse the statement ("cached plan must not change result type"):
 *   each run already bound to it fails once. `renewed` then gives that SQL a fresh name and a
 *   text that differs by a trailing comment, which every connection prepares anew (PgBouncer
 *   1.21+ shares prepared statements between clients by their text, so a new name alone would
 *   find the stale one again).
 * - Behind PgBouncer in transaction mode, prepared statements need PgBouncer 1.21 or later with
 *   `max_prepared_statements` set, or `DATABASE_PREPARED_STATEMENTS=0` (docs/operations.md).
 */
export class StatementNames {
  readonly #prepared = new Map<string, PreparedStatement>();
  #issued = 0;

  /** `capacity` 0: nothing is prepared, every statement runs unnamed. */
  constructor(readonly capacity = 2_000) {}

  /** How to run `sql` prepared, or undefined to run it unnamed. */
  preparedFor(sql: string, parameterCount: number): PreparedStatement | undefined {
    const known = this.#prepared.get(sql);
    if (known) return known;
    if (parameterCount === 0 || this.#prepared.size >= this.capacity || !ROW_STATEMENT.test(sql)) return undefined;
    return this.#issue(sql);
  }

  /**
   * After PostgreSQL refused `stale`: a fresh name and text for its SQL, made once however many
   * runs of the stale one fail together. Names are never reused.
   */
  renewed(sql: string, stale: PreparedStatement): PreparedStatement {
    const current = this.#prepared.get(sql);
    return current && current !== stale ? current : this.#issue(sql);
  }

  #issue(sql: string): PreparedStatement {
    const n = ++this.#issued;
    const statement = { name: `tsaro_${n}`, text: this.#prepared.has(sql) ? `${sql} /* tsaro_${n} */` : sql };
    this.#prepared.set(sql, statement);
    return statement;
  }
}

/** A statement's name and the text it is prepared with (the SQL, or after a renewal the SQL and a comment). */
export interface PreparedStatement {
  name: string;
  text: string;
}

const ROW_STATEMENT = /^\s*(select|insert|update|delete|with)\b/i;

/** PostgreSQL refused a prepared statement because a table it reads changed shape (0A000). */
export function isStalePreparedStatement(err: unknown): boolean {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  return code === '0A000' && /cached plan must not change result type/.test(String(message));
}
