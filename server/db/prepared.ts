import { CompiledQuery, type Compilable, type QueryResult } from 'kysely';
import { DEFERRED_WRITE } from './deferred-write.ts';
import { directReadOf } from './direct-read.ts';
import type { Executor } from './schema.ts';

/**
 * A query built and compiled by Kysely once per engine and set of parameter names, then run
 * with new values: on a hot path, building and compiling the query tree was a quarter of the
 * server's CPU per request (profiles of `npm run bench`, docs/benchmarks.md), several times the
 * cost of running the statement itself.
 *
 * `build` receives a stand-in for every parameter (a marker string) and must use each one as a
 * plain value: a comparison operand, an inserted or updated value. Never as an identifier, a
 * list (`in`), an object, or inside an expression Kysely would inline: a marker found anywhere
 * but alone in a parameter slot is refused at the first call. Parameters must be given with
 * the same names on every call (their names select the template); a value of `undefined` is
 * refused, since Kysely would have left that column out.
 *
 * `deferred`: a write its transaction need not wait for (server/db/deferred-write.ts); its
 * result then tells nothing (no affected-row count) on PostgreSQL.
 */
export function preparedQuery<P extends object, O>(
  build: (db: Executor, params: P) => Compilable<O>,
  options: { deferred?: boolean } = {},
): PreparedQuery<P, O> {
  const templates: Template[] = [];
  const compiled = (db: Executor, params: P): CompiledQuery<O> => {
    const values = params as Record<string, unknown>;
    const names = Object.keys(values);
    // One engine per process in practice; told apart by the adapter's class all the same.
    const adapter = db.getExecutor().adapter.constructor;
    // Found by comparing names (the same strings each call, so each comparison is one of
    // pointers), not by joining them into a key: an SOS's seventy names made a string to hash per call.
    let template = templates.find((known) => known.adapter === adapter && sameNames(known.names, names));
    if (!template) {
      template = compileTemplate(db, names, build as unknown as (db: Executor, params: Record<string, unknown>) => Compilable<unknown>);
      template.adapter = adapter;
      if (options.deferred) template.sql += DEFERRED_WRITE;
      templates.push(template);
    }
    const parameters = template.slots.map((slot) => {
      if (typeof slot !== 'string') return slot.value;
      const value = values[slot];
      if (value === undefined) throw new Error(`prepared query: parameter ${slot} is undefined`);
      return value;
    });
    return CompiledQuery.raw(template.sql, parameters) as CompiledQuery<O>;
  };
  const run = async (db: Executor, params: P): Promise<QueryResult<O>> => {
    const query = compiled(db, params);
    // SQLite's root db: a read runs on the query-only connection without Kysely (direct-read.ts).
    const direct = directReadOf(db)?.(query.sql, query.parameters);
    if (direct) return direct as QueryResult<O>;
    return db.executeQuery<O>(query);
  };
  return run;
}

/** Runs the query: compiled once per engine and set of parameter names, then bound to new values. */
export type PreparedQuery<P, O> = (db: Executor, params: P) => Promise<QueryResult<O>>;

const sameNames = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((name, i) => name === b[i]);

interface Template {
  adapter?: unknown;
  /** The parameters' names, in the order given. */
  names: readonly string[];
  sql: string;
  /** Per parameter position: the name of the value to put there, or a constant Kysely compiled in. */
  slots: Array<string | { value: unknown }>;
}

const MARK = '\u0000tsaro-param:';

function compileTemplate(db: Executor, names: string[], build: (db: Executor, params: Record<string, unknown>) => Compilable<unknown>): Template {
  const markers = Object.fromEntries(names.map((name) => [name, `${MARK}${name}\u0000`]));
  const compiled = build(db, markers).compile();
  if (compiled.sql.includes(MARK)) throw new Error('prepared query: a parameter was inlined into the SQL');
  const used = new Set<string>();
  const slots = compiled.parameters.map((value): Template['slots'][number] => {
    if (typeof value !== 'string' || !value.includes(MARK)) return { value };
    const name = names.find((n) => markers[n] === value);
    if (!name) throw new Error('prepared query: a parameter was used inside a larger value');
    used.add(name);
    return name;
  });
  const unused = names.filter((name) => !used.has(name));
  if (unused.length) throw new Error(`prepared query: parameters not found in the compiled query: ${unused.join(', ')}`);
  return { names, sql: compiled.sql, slots };
}

/**
 * Rows as flat parameters (`0.seq`, `1.seq`, ...) for a multi-row insert through
 * `preparedQuery`, and back inside its `build` with `paramRows`: one template per row count.
 */
export function rowParams(rows: readonly object[]): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  rows.forEach((row, i) => {
    for (const [column, value] of Object.entries(row)) params[`${i}.${column}`] = value;
  });
  return params;
}

export function paramRows(params: Record<string, unknown>): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = [];
  for (const [name, value] of Object.entries(params)) {
    const dot = name.indexOf('.');
    (rows[Number(name.slice(0, dot))] ??= {})[name.slice(dot + 1)] = value;
  }
  return rows;
}
