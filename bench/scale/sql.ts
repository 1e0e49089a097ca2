/**
 * SQL expressions the generator builds rows from, written once for both engines: a row's number
 * `n` (from `generate_series` on PostgreSQL, a recursive CTE on SQLite) turned into an instant,
 * an id as `newId` makes them (a prefix and a ULID whose time is the row's), a choice from a
 * list, and the statement that inserts a range of numbers in one go.
 */
import type { Engine } from '../lib/settings.ts';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A text literal. */
export const lit = (value: string) => `'${value.replaceAll("'", "''")}'`;

/** ISO 8601 UTC text with milliseconds (what the product stores) of `ms` since the epoch. */
export function isoOf(engine: Engine, ms: string): string {
  return engine === 'postgres'
    ? `to_char(to_timestamp((${ms}) / 1000.0) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
    : `strftime('%Y-%m-%dT%H:%M:%fZ', (${ms}) / 1000.0, 'unixepoch')`;
}

/** `digits` Crockford base-32 characters of the integer `value`, most significant first. */
export function base32(value: string, digits: number): string {
  const parts: string[] = [];
  for (let k = digits - 1; k >= 0; k--) parts.push(`substr('${CROCKFORD}', cast((((${value}) / ${2 ** (5 * k)}) % 32) + 1 as integer), 1)`);
  return parts.join(' || ');
}

/**
 * `prefix_` + a ULID: ten characters of the row's time (as `newId(prefix, at)`), then six of
 * `salt` and ten of `n` (unique within a table, in `n`'s order), so ids sort as their times do.
 */
export function idOf(prefix: string, ms: string, n: string, salt: number): string {
  return `${lit(`${prefix}_`)} || ${base32(ms, 10)} || ${lit(saltText(salt))} || ${base32(n, 10)}`;
}

function saltText(salt: number): string {
  let text = '';
  for (let k = 0; k < 6; k++) text += CROCKFORD[(salt >> (5 * (5 - k))) & 31];
  return text;
}

/** The `index`-th (0-based, taken modulo the list's length) of `values`, as text. */
export function pick(values: readonly string[], index: string): string {
  const width = Math.max(...values.map((v) => v.length), 1);
  const packed = values.map((v) => v.padEnd(width, ' ')).join('');
  return `rtrim(substr(${lit(packed)}, cast(((${index}) % ${values.length}) * ${width} + 1 as integer), ${width}))`;
}

/** A digit string of `n` padded to `width` (both engines). */
export function padded(engine: Engine, n: string, width: number): string {
  if (engine === 'postgres') return `lpad(cast(${n} as text), ${width}, '0')`;
  return `substr(${lit('0'.repeat(width))} || cast(${n} as text), -${width}, ${width})`;
}

/**
 * Numbers `from` to `to - 1` as a row source named `s` with the column `n`: PostgreSQL's
 * `generate_series` (bigint), SQLite's recursive CTE. Answers [prefix, from-clause].
 */
export function series(engine: Engine, from: number, to: number): { with: string; from: string } {
  if (engine === 'postgres') return { with: '', from: `generate_series(${from}::bigint, ${to - 1}::bigint) as s(n)` };
  return { with: `with recursive s(n) as (select ${from} union all select n + 1 from s where n < ${to - 1}) `, from: 's' };
}

/** The PostgreSQL type to cast an expression to for a column (`udt_name`), so literals land typed. */
export function castTo(engine: Engine, type: string | undefined, expression: string): string {
  if (engine !== 'postgres' || !type) return expression;
  return `cast(${expression} as ${type})`;
}

/** A JavaScript value as a SQL literal. */
export function valueLiteral(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (value instanceof Date) return lit(value.toISOString());
  if (typeof value === 'object') return lit(JSON.stringify(value));
  return lit(String(value));
}
