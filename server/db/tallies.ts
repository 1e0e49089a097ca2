import { sql, type RawBuilder } from 'kysely';
import { DAY_MS } from '../../shared/time.ts';
import type { SelectQueryBuilder } from 'kysely';
import type { Total } from '../http/pagination.ts';
import { countRows, countRowsUpTo, type SkipStart, type SkipTo } from './paged.ts';
import { isPostgres, type Executor, type Tenant } from './schema.ts';
import { SEARCH_COUNT_CEILING, searchScanRows, type SearchWay } from './text-search.ts';
import type { SitelessRow } from './tenant.ts';
import { setNewest } from '../bounded-map.ts';

/**
 * Totals that do not scan (issue #45). A list's `totalResults`, and the stats and reports over a
 * window, are counted from three parts, read in one statement (one snapshot):
 *
 * 1. **Tallies**: per tenant, UTC day and the values lists filter by (site, status, category, ...),
 *    how many rows there were, and sums and histograms for the reports. Only settled rows are
 *    tallied (a visit checked out, an incident resolved or cancelled, an event): a settled row
 *    never changes what it is counted under again. Each tallies table has a twin by UTC month
 *    (`<table>_by_month`, migration 0057, the same columns with `day` holding `YYYY-MM`), which
 *    the fold writes in the same transaction: a window reads its whole months there and only
 *    the days at its ends by day, so a year is about twelve rows per combination, not 365.
 * 2. **The unfolded tail**: rows not tallied yet (`tallied = 0`: every row at first, then the
 *    ones still open, and those settled since the fold last ran), counted as they are now, on a
 *    partial index that holds only them.
 * 3. **The window's partial days**: a `from_date`/`to_date` inside a day (a site's midnight, an
 *    instant) counts that day's rows from the table itself, tallied or not.
 *
 * The fold (`foldTallies`) moves settled rows into the tallies in small batches in the
 * background: it adds them to their tally rows and marks them, in one transaction, so at every
 * snapshot each row is counted exactly once. The write path gains nothing: a new row is only an
 * entry in the partial index, and no statement or row that every write touches.
 *
 * Each feature's store declares its table's `TallySpec` and owns its tallies table.
 */
export interface TallySpec {
  /** A short name (the fold's logs). */
  name: string;
  /** Its number among the specs, for the fold's advisory lock on PostgreSQL. */
  lockKey: number;
  table: string;
  /** The primary key. */
  id: string;
  /** The timestamp (ISO 8601 UTC text) whose day a row is tallied under: what lists order and filter windows by. */
  dayColumn: string;
  /** Key columns every read filters by equality (the tenant): copied as they are. */
  scope: readonly string[];
  /** Which rows may be tallied (SQL on the table as `b`): settled, never to change what they are counted under. */
  settled: RawBuilder<boolean>;
  /** The tallies kept of the table's rows: each a table keyed by scope, day and its dims. One fold writes them all. */
  rollups: readonly Rollup[];
}

/** One tallies table of a tallied table. */
export interface Rollup {
  table: string;
  /** Key columns lists filter or reports group by: copied from the row, a null text stored as ''. `site_id` among them, where the table has sites. */
  dims: readonly string[];
  /** Sums kept beside `n`: name → the row's value (SQL on the table as `b`, for PostgreSQL or SQLite). */
  sums?: Record<string, (postgres: boolean) => RawBuilder<number | null>>;
  /** Histograms kept beside `n` (JSON of bucket → count): name → the row's value (null: none), and its bucket. */
  histograms?: Record<string, { value: (postgres: boolean) => RawBuilder<number | null>; bucket: (value: number) => number }>;
}

/** What a count or a report asks of a tallied table. */
export interface TallyFilter {
  /** Equality on the scope columns (the tenant). */
  scope: Record<string, string>;
  /** A caller limited to sites: those it reaches, and what a siteless row is to it. */
  sites?: { reach: readonly string[]; siteless: SitelessRow };
  /** Equality (or any of a list) on dims. */
  equals?: Record<string, string | number | readonly string[]>;
  /** Inequality (or none of a list) on dims that are never null. */
  except?: Record<string, string | readonly string[]>;
  /** The window on `dayColumn`: at or after `from`, before `before` (ISO 8601 UTC). */
  from?: string;
  before?: string;
}

const dayOf = (instant: string) => instant.slice(0, 10);
const dayStart = (instant: string) => `${dayOf(instant)}T00:00:00.000Z`;
const LAST_DAY = '9999-12-31';
const nextDayStart = (instant: string) => new Date(Date.parse(dayStart(instant)) + DAY_MS).toISOString();

/**
 * The window split at day boundaries: whole days (tallied, or unfolded) and the partial days at
 * either end (counted from the table). Absent bounds are open.
 */
export function splitWindow(from?: string, before?: string): { wholeFrom?: string; wholeBefore?: string; edges: Array<[string | undefined, string | undefined]>; empty: boolean } {
  if (from !== undefined && from !== dayStart(from) && dayOf(from) === LAST_DAY) {
    // A window from inside the last day an ISO date can name has no whole day after it (the next,
    // "+010000-01-01", would sort before every real day and count them all): all from the table.
    return { edges: before === undefined || from < before ? [[from, before]] : [], empty: true };
  }
  const wholeFrom = from === undefined ? undefined : from === dayStart(from) ? from : nextDayStart(from);
  const wholeBefore = before === undefined ? undefined : dayStart(before);
  if (from !== undefined && before !== undefined && wholeFrom! >= wholeBefore!) {
    // Within one day (or two partial ones with no whole day between): all from the table.
    return { edges: from < before ? [[from, before]] : [], empty: true };
  }
  const edges: Array<[string | undefined, string | undefined]> = [];
  if (from !== undefined && from !== wholeFrom) edges.push([from, wholeFrom]);
  if (before !== undefined && before !== wholeBefore) edges.push([wholeBefore, before]);
  return { wholeFrom, wholeBefore, edges, empty: false };
}

function scopeOn(alias: string, spec: TallySpec, filter: TallyFilter): RawBuilder<boolean>[] {
  return spec.scope.map((column) => sql<boolean>`${sql.ref(`${alias}.${column}`)} = ${filter.scope[column]}`);
}

/** Dims and sites on the table (`tallied = false`: null is null) or on its tallies (null is ''). */
function dimsOn(alias: string, filter: TallyFilter, tallied: boolean): RawBuilder<boolean>[] {
  const conditions: RawBuilder<boolean>[] = [];
  for (const [column, wanted] of Object.entries(filter.equals ?? {})) {
    const ref = sql.ref(`${alias}.${column}`);
    if (typeof wanted === 'string' || typeof wanted === 'number') conditions.push(sql<boolean>`${ref} = ${wanted}`);
    else conditions.push(wanted.length ? sql<boolean>`${ref} in (${sql.join([...wanted])})` : sql<boolean>`1 = 0`);
  }
  for (const [column, unwanted] of Object.entries(filter.except ?? {})) {
    const ref = sql.ref(`${alias}.${column}`);
    if (typeof unwanted === 'string') conditions.push(sql<boolean>`${ref} <> ${unwanted}`);
    else if (unwanted.length) conditions.push(sql<boolean>`${ref} not in (${sql.join([...unwanted])})`);
  }
  if (filter.sites) {
    const ref = sql.ref(`${alias}.site_id`);
    const { reach, siteless } = filter.sites;
    const inSites = reach.length ? sql<boolean>`${ref} in (${sql.join([...reach])})` : sql<boolean>`1 = 0`;
    const none = tallied ? sql<boolean>`${ref} = ''` : sql<boolean>`${ref} is null`;
    conditions.push(siteless === 'everywhere' ? sql<boolean>`(${inSites} or ${none})` : inSites);
  }
  return conditions;
}

const all = (conditions: RawBuilder<unknown>[]): RawBuilder<boolean> => sql<boolean>`${conditions.length ? sql.join(conditions, sql` and `) : sql`1 = 1`}`;

/** `tallied = 0` as a literal, so both planners see it implies the partial index's predicate. */
const UNFOLDED = sql.raw('tallied = 0');

/**
 * The table as the unfolded tail is read from it: on SQLite through its partial index
 * (`<table>_untallied`, migration 0036), named, because SQLite's planner otherwise prefers an
 * index with more equality columns (`incidents_by_status` for `status = 'resolved'`) and walks
 * every row of that value, tallied or not: 180,000 rows for one count on a generated year (issue
 * #45). PostgreSQL's planner weighs the partial index's size itself.
 */
function unfoldedTable(db: Executor, spec: TallySpec): RawBuilder<unknown> {
  const table = sql.table(spec.table);
  return isPostgres(db) ? sql`${table} b` : sql`${table} b indexed by ${sql.raw(`${spec.table}_untallied`)}`;
}

/** The twin of a tallies table by UTC month (migration 0057): the same columns, `day` holding `YYYY-MM`. */
export const monthlyTable = (rollup: Rollup) => `${rollup.table}_by_month`;

const monthOf = (day: string) => day.slice(0, 7);
const monthStart = (month: string) => `${month}-01`;
const nextMonth = (month: string) => {
  const [year, m] = month.split('-').map(Number) as [number, number];
  return m === 12 ? `${year + 1}-01` : `${year}-${String(m + 1).padStart(2, '0')}`;
};

const daysBetween = (from: string, before: string) => Math.round((Date.parse(before) - Date.parse(from)) / DAY_MS);

/** One end of a window of whole days, read by months: where the months start (or end), and the days added or taken away there. */
interface MonthEnd {
  month?: string;
  add?: [string, string];
  less?: [string, string];
  /** Days read from the day tallies. */
  days: number;
}

/**
 * Whole days [fromDay, beforeDay) (YYYY-MM-DD, either open) read from the month tallies and the
 * day tallies, reading as few days as it can: the whole months inside the window by month, and
 * at each end either the odd days by day (`days`, added) or that end's whole month by month less
 * the days of it outside the window (`less`, taken away: the fold writes a row's day and month in
 * one transaction, so a month's tallies are the sum of its days' at every snapshot). A window
 * ending on the 29th of a month reads that month and one day, not 28 days; a window inside one
 * month may read it as its days. Every day of the window counts once, every other day nets to
 * nothing.
 */
export function splitDays(
  fromDay?: string,
  beforeDay?: string,
): { months?: { from?: string; before?: string }; days: Array<[string | undefined, string | undefined]>; less: Array<[string, string]> } {
  const lower: MonthEnd[] = fromDay === undefined ? [{ days: 0 }] : [];
  if (fromDay !== undefined) {
    const own = monthOf(fromDay);
    const next = nextMonth(own);
    if (monthStart(own) === fromDay) lower.push({ month: own, days: 0 });
    else {
      // From inside December 9999 no month follows ("10000-01" would sort before every real month).
      if (next.length === 7) lower.push({ month: next, add: [fromDay, monthStart(next)], days: daysBetween(fromDay, monthStart(next)) });
      lower.push({ month: own, less: [monthStart(own), fromDay], days: daysBetween(monthStart(own), fromDay) });
    }
  }
  const upper: MonthEnd[] = beforeDay === undefined ? [{ days: 0 }] : [];
  if (beforeDay !== undefined) {
    const own = monthOf(beforeDay);
    const next = nextMonth(own);
    if (monthStart(own) === beforeDay) upper.push({ month: own, days: 0 });
    else {
      upper.push({ month: own, add: [monthStart(own), beforeDay], days: daysBetween(monthStart(own), beforeDay) });
      if (next.length === 7) upper.push({ month: next, less: [beforeDay, monthStart(next)], days: daysBetween(beforeDay, monthStart(next)) });
    }
  }
  let best: { lower: MonthEnd; upper: MonthEnd; days: number } | undefined;
  for (const l of lower) {
    for (const u of upper) {
      // The months must hold at least one month, or the ends' days would overlap.
      if (l.month !== undefined && u.month !== undefined && l.month >= u.month) continue;
      if (!best || l.days + u.days < best.days) best = { lower: l, upper: u, days: l.days + u.days };
    }
  }
  const plain = { days: [[fromDay, beforeDay]] as Array<[string | undefined, string | undefined]>, less: [] };
  if (!best) return plain;
  // A short window read day by day when that reads fewer days than a month and its odd ones.
  if (fromDay !== undefined && beforeDay !== undefined && daysBetween(fromDay, beforeDay) <= best.days) return plain;
  return {
    months: { from: best.lower.month, before: best.upper.month },
    days: [best.lower.add, best.upper.add].filter((run): run is [string, string] => run !== undefined),
    less: [best.lower.less, best.upper.less].filter((run): run is [string, string] => run !== undefined),
  };
}

/**
 * The three parts' conditions, on the tallies (alias t) and on the table (alias b), for the
 * window. `monthly` false reads whole days from the day tallies alone (counts by day).
 */
function parts(spec: TallySpec, filter: TallyFilter, monthly = true) {
  const window = splitWindow(filter.from, filter.before);
  const day = sql.ref(`b.${spec.dayColumn}`);
  const tableBase = [...scopeOn('b', spec, filter), ...dimsOn('b', filter, false)];
  const tallyBase = [...scopeOn('t', spec, filter), ...dimsOn('t', filter, true)];
  const unfolded = [...tableBase, UNFOLDED];
  if (window.wholeFrom !== undefined) unfolded.push(sql<boolean>`${day} >= ${window.wholeFrom}`);
  if (window.wholeBefore !== undefined) unfolded.push(sql<boolean>`${day} < ${window.wholeBefore}`);
  const range = (from?: string, before?: string) => [
    ...(from !== undefined ? [sql<boolean>`t.day >= ${from}`] : []),
    ...(before !== undefined ? [sql<boolean>`t.day < ${before}`] : []),
  ];
  const wholeDays = [window.wholeFrom && dayOf(window.wholeFrom), window.wholeBefore && dayOf(window.wholeBefore)] as const;
  const split = window.empty ? undefined : monthly ? splitDays(...wholeDays) : { days: [[...wholeDays]] as Array<[string | undefined, string | undefined]>, less: [], months: undefined };
  // One condition per run of days (each a range of the tallies' key, not an OR the planner may scan).
  const byDay = (split?.days ?? []).map(([from, before]) => all([...tallyBase, ...range(from, before)]));
  const less = (split?.less ?? []).map(([from, before]) => all([...tallyBase, ...range(from, before)]));
  const byMonth = split?.months ? all([...tallyBase, ...range(split.months.from, split.months.before)]) : undefined;
  const edges = window.edges.map(([from, before]) =>
    all([...(from !== undefined ? [sql<boolean>`${day} >= ${from}`] : []), ...(before !== undefined ? [sql<boolean>`${day} < ${before}`] : [])]),
  );
  return {
    /** Tallies of whole days outside whole months, a condition per run of days (at most two). */
    tallies: byDay,
    /** Tallies of days inside the whole months read but outside the window, to take away (at most two runs). */
    less,
    /** Tallies of whole months: none when the window holds no whole month. */
    months: byMonth,
    /** Rows not yet tallied, in whole days. */
    unfolded: window.empty ? undefined : all(unfolded),
    /** Every row of the partial days. */
    edges: edges.length ? all([...tableBase, sql<boolean>`(${sql.join(edges.map((edge) => sql`(${edge})`), sql` or `)})`]) : undefined,
  };
}

/**
 * How many rows match: tallies of whole days + rows not yet tallied + the partial days at the
 * window's ends, in one statement. Exact for any window and any dims.
 */
export async function talliedCount(db: Executor, spec: TallySpec, rollup: Rollup, filter: TallyFilter): Promise<number> {
  const { tallies, less, months, unfolded, edges } = parts(spec, filter);
  const table = sql.table(spec.table);
  const terms: RawBuilder<number>[] = [];
  if (months) terms.push(sql<number>`(select coalesce(sum(t.n), 0) from ${sql.table(monthlyTable(rollup))} t where ${months})`);
  for (const days of tallies) terms.push(sql<number>`(select coalesce(sum(t.n), 0) from ${sql.table(rollup.table)} t where ${days})`);
  if (unfolded) terms.push(sql<number>`(select count(*) from ${unfoldedTable(db, spec)} where ${unfolded})`);
  if (edges) terms.push(sql<number>`(select count(*) from ${table} b where ${edges})`);
  if (terms.length === 0) return 0;
  const taken = less.map((days) => sql` - (select coalesce(sum(t.n), 0) from ${sql.table(rollup.table)} t where ${days})`);
  const { rows } = await sql<{ n: number | string }>`select ${sql.join(terms, sql` + `)}${sql.join(taken, sql``)} as n`.execute(db);
  return Number(rows[0]!.n);
}

/** A group of a report: its dims' values (null for '' in the tallies), its count and its sums. */
export type TallyGroup = Record<string, string | null> & { n: number; sums: Record<string, number> };

/**
 * A report over a window: counts and sums per combination of `groupBy` dims, from the same three
 * parts as `talliedCount` (one statement), merged here.
 */
export async function talliedGroups(db: Executor, spec: TallySpec, rollup: Rollup, filter: TallyFilter, groupBy: readonly string[]): Promise<TallyGroup[]> {
  const { tallies, less, months, unfolded, edges } = parts(spec, filter);
  const sums = Object.entries(rollup.sums ?? {});
  const postgres = isPostgres(db);
  const keyOf = (alias: string) => groupBy.map((column) => sql`${sql.ref(`${alias}.${column}`)} as ${sql.ref(column)}`);
  const groupOf = (alias: string) => (groupBy.length ? sql` group by ${sql.join(groupBy.map((column) => sql.ref(`${alias}.${column}`)))}` : sql``);
  const selects: RawBuilder<unknown>[] = [];
  const columns = (alias: string, fromTable: boolean, sign = sql``) =>
    sql.join([
      ...keyOf(alias),
      fromTable ? sql`count(*) as n` : sql`${sign}coalesce(sum(${sql.ref(`${alias}.n`)}), 0) as n`,
      ...sums.map(([name, value]) => (fromTable ? sql`coalesce(sum(${value(postgres)}), 0) as ${sql.ref(name)}` : sql`${sign}coalesce(sum(${sql.ref(`${alias}.${name}`)}), 0) as ${sql.ref(name)}`)),
    ]);
  if (months) selects.push(sql`select ${columns('t', false)} from ${sql.table(monthlyTable(rollup))} t where ${months}${groupOf('t')}`);
  for (const days of tallies) selects.push(sql`select ${columns('t', false)} from ${sql.table(rollup.table)} t where ${days}${groupOf('t')}`);
  for (const days of less) selects.push(sql`select ${columns('t', false, sql`0 - `)} from ${sql.table(rollup.table)} t where ${days}${groupOf('t')}`);
  if (unfolded) selects.push(sql`select ${columns('b', true)} from ${unfoldedTable(db, spec)} where ${unfolded}${groupOf('b')}`);
  if (edges) selects.push(sql`select ${columns('b', true)} from ${sql.table(spec.table)} b where ${edges}${groupOf('b')}`);
  if (selects.length === 0) return [];
  const { rows } = await sql<Record<string, unknown>>`${sql.join(selects, sql` union all `)}`.execute(db);
  const merged = new Map<string, TallyGroup>();
  for (const row of rows) {
    const values = groupBy.map((column) => (row[column] === '' || row[column] === undefined ? null : (row[column] as string | null)));
    const key = JSON.stringify(values);
    let group = merged.get(key);
    if (!group) {
      group = Object.assign(Object.fromEntries(groupBy.map((column, i) => [column, values[i]])), { n: 0, sums: Object.fromEntries(sums.map(([name]) => [name, 0])) }) as TallyGroup;
      merged.set(key, group);
    }
    group.n += Number(row.n);
    for (const [name] of sums) group.sums[name]! += Number(row[name]);
  }
  // A group whose rows all fell on the days taken away nets to nothing: it is not in the window.
  return [...merged.values()].filter((group) => group.n !== 0);
}

/** A histogram: bucket → count (JSON object in the tallies). */
export type Histogram = Map<number, number>;

/**
 * A histogram measure over a window: the tallies' merged with the values of the rows counted
 * from the table (the unfolded tail and the partial days), bucketed the same way.
 */
export async function talliedHistogram(db: Executor, spec: TallySpec, rollup: Rollup, filter: TallyFilter, name: string): Promise<Histogram> {
  return (await talliedHistograms(db, spec, rollup, filter, [name]))[name]!;
}

/**
 * Several histogram measures of one rollup over a window, in one statement (one snapshot, and the
 * table's rows of the window read once for all of them): the month and day tallies' histograms
 * added (the days taken away subtracted), and the values of the rows counted from the table.
 */
export async function talliedHistograms(db: Executor, spec: TallySpec, rollup: Rollup, filter: TallyFilter, names: readonly string[]): Promise<Record<string, Histogram>> {
  const measures = names.map((name) => {
    const measure = rollup.histograms?.[name];
    if (!measure) throw new Error(`${spec.name} keeps no histogram ${name}`);
    return measure;
  });
  const { tallies, less, months, unfolded, edges } = parts(spec, filter);
  const postgres = isPostgres(db);
  const noText = sql`cast(null as text)`;
  const noValue = sql`cast(null as integer)`;
  // Each part's rows: a sign (1 added, -1 taken away, 0 a row's own values), the stored histograms, the row's values.
  const stored = (sign: number, table: string, where: RawBuilder<boolean>) =>
    sql`select ${sql.join([sql`${sql.lit(sign)} as s`, ...names.map((name, i) => sql`${sql.ref(`t.${name}`)} as ${sql.ref(`h${i}`)}`), ...names.map((_, i) => sql`${noValue} as ${sql.ref(`v${i}`)}`)])} from ${sql.table(table)} t where ${where}`;
  const values = (from: RawBuilder<unknown>, where: RawBuilder<boolean>) =>
    sql`select ${sql.join([sql`0 as s`, ...names.map((_, i) => sql`${noText} as ${sql.ref(`h${i}`)}`), ...measures.map((measure, i) => sql`${measure.value(postgres)} as ${sql.ref(`v${i}`)}`)])} from ${from} where ${where}`;
  const selects = [
    ...(months ? [stored(1, monthlyTable(rollup), months)] : []),
    ...tallies.map((days) => stored(1, rollup.table, days)),
    ...less.map((days) => stored(-1, rollup.table, days)),
    ...(unfolded ? [values(unfoldedTable(db, spec), unfolded)] : []),
    ...(edges ? [values(sql`${sql.table(spec.table)} b`, edges)] : []),
  ];
  const histograms = Object.fromEntries(names.map((name) => [name, new Map()])) as Record<string, Histogram>;
  if (selects.length === 0) return histograms;
  const { rows } = await sql<Record<string, string | number | null>>`${sql.join(selects, sql` union all `)}`.execute(db);
  for (const row of rows) {
    const sign = Number(row.s);
    names.forEach((name, i) => {
      const histogram = histograms[name]!;
      const add = (bucket: number, count: number) => histogram.set(bucket, (histogram.get(bucket) ?? 0) + count);
      if (sign !== 0) {
        for (const [bucket, count] of Object.entries(JSON.parse(String(row[`h${i}`] ?? '{}')) as Record<string, number>)) add(Number(bucket), sign * count);
      } else {
        const v = row[`v${i}`];
        if (v !== null && v !== undefined) add(measures[i]!.bucket(Number(v)), 1);
      }
    });
  }
  // A bucket whose values all fell on the days taken away is empty: not a bucket of the window.
  for (const histogram of Object.values(histograms)) for (const [bucket, count] of histogram) if (count === 0) histogram.delete(bucket);
  return histograms;
}

/** Rows folded per transaction: small, so the writer (SQLite) or the rows' locks are held briefly. */
export const FOLD_BATCH = 500;

/**
 * Folds up to `batch` settled, untallied rows into the tallies, in one transaction: their counts,
 * sums and histograms added to their tally rows, and the rows marked. On PostgreSQL one host
 * folds a table at a time (a transaction-scoped advisory lock; the others skip), since a
 * histogram is read, merged and written back. Answers how many rows it folded.
 */
export async function foldTallies(db: Executor, spec: TallySpec, batch = FOLD_BATCH): Promise<number> {
  return db.transaction().execute(async (trx) => {
    if (isPostgres(trx)) {
      const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(5318, ${40 + spec.lockKey}) as locked`.execute(trx);
      if (!rows[0]!.locked) return 0;
    }
    const picked = await pickSettled(trx, spec, batch);
    if (picked.length === 0) return 0;
    await addToRollups(trx, spec, picked);
    await sql`update ${sql.table(spec.table)} set tallied = 1 where ${sql.ref(spec.id)} in (${sql.join(picked.map((row) => row.id))}) and ${UNFOLDED}`.execute(trx);
    return picked.length;
  });
}

/**
 * The fold over a whole table at once, in id order, `chunk` rows a transaction: for a database
 * loaded in bulk (the bench's generated year), where 500 at a time would take hours. The tallies
 * it writes are those the background fold would have written.
 */
export async function foldInBulk(db: Executor, spec: TallySpec, chunk = 20_000): Promise<number> {
  let after: string | undefined;
  let total = 0;
  for (;;) {
    const n = await db.transaction().execute(async (trx) => {
      const picked = await pickSettled(trx, spec, chunk, { after: after ?? '' });
      if (picked.length === 0) return 0;
      await addToRollups(trx, spec, picked);
      const first = after;
      after = String(picked[picked.length - 1]!.id);
      // Every settled, untallied row up to the last picked was picked (they were taken in id order).
      await sql`update ${sql.table(spec.table)} as b set tallied = 1 where b.${sql.ref(spec.id)} <= ${after}${first === undefined ? sql`` : sql` and b.${sql.ref(spec.id)} > ${first}`} and ${UNFOLDED} and ${spec.settled}`.execute(trx);
      return picked.length;
    });
    total += n;
    if (n < chunk) return total;
  }
}

/**
 * Up to `limit` settled rows not yet tallied, with their day, keys and measures: any of them (the
 * background fold, on the partial index), or with `inOrder` the first after `inOrder.after` in id
 * order (the fold in bulk; ids are text, and '' is before every one). The background fold reads
 * the partial index of untallied rows (on SQLite by name: its planner took `access_logs_open` for
 * `status = 'checked_out'` and walked every visit already folded before reaching one that was
 * not, each batch, so an upgrade's backlog folded in quadratic time).
 */
async function pickSettled(trx: Executor, spec: TallySpec, limit: number, inOrder?: { after: string }): Promise<Array<Record<string, unknown>>> {
  const postgres = isPostgres(trx);
  const measured = spec.rollups.flatMap((rollup, r) => [
    ...Object.entries(rollup.sums ?? {}).map(([name, value]) => sql`${value(postgres)} as ${sql.ref(`s${r}_${name}`)}`),
    ...Object.entries(rollup.histograms ?? {}).map(([name, { value }]) => sql`${value(postgres)} as ${sql.ref(`h${r}_${name}`)}`),
  ]);
  const keys = [...new Set([...spec.scope, ...spec.rollups.flatMap((rollup) => rollup.dims)])];
  const ordered = inOrder ? sql` and b.${sql.ref(spec.id)} > ${inOrder.after} order by b.${sql.ref(spec.id)}` : sql``;
  const { rows } = await sql<Record<string, unknown>>`
    select ${sql.join([
      sql`b.${sql.ref(spec.id)} as id`,
      sql`substr(b.${sql.ref(spec.dayColumn)}, 1, 10) as day`,
      ...keys.map((column) => sql`b.${sql.ref(column)} as ${sql.ref(column)}`),
      ...measured,
    ])}
    from ${inOrder ? sql`${sql.table(spec.table)} b` : unfoldedTable(trx, spec)} where ${UNFOLDED} and ${spec.settled}${ordered} limit ${limit}`.execute(trx);
  return rows;
}

/** Adds picked rows to every rollup of the table, by day and by month (in the fold's transaction). */
async function addToRollups(trx: Executor, spec: TallySpec, rows: Array<Record<string, unknown>>): Promise<void> {
  for (const [r, rollup] of spec.rollups.entries()) {
    await addToRollup(trx, spec, rollup, r, rows, rollup.table, (day) => day);
    await addToRollup(trx, spec, rollup, r, rows, monthlyTable(rollup), monthOf);
  }
}

/**
 * Adds picked rows to one tallies table of a rollup (by day, or by month: `period` makes a row's
 * day its key): counts and sums by the database, histograms merged here.
 */
async function addToRollup(
  trx: Executor,
  spec: TallySpec,
  rollup: Rollup,
  r: number,
  rows: Array<Record<string, unknown>>,
  tallies: string,
  period: (day: string) => string,
): Promise<void> {
  const sums = Object.keys(rollup.sums ?? {});
  const histograms = Object.entries(rollup.histograms ?? {});
  // The tallies' primary key, in its order: scope, day, dims.
  const keyColumns = [...spec.scope, 'day', ...rollup.dims];
  const groups = new Map<string, { key: Record<string, unknown>; n: number; sums: Record<string, number>; histograms: Record<string, Histogram> }>();
  for (const row of rows) {
    const key: Record<string, unknown> = {};
    for (const column of keyColumns) key[column] = row[column] === null || row[column] === undefined ? '' : row[column];
    key.day = period(String(row.day));
    const id = JSON.stringify(key);
    let group = groups.get(id);
    if (!group) {
      group = { key, n: 0, sums: Object.fromEntries(sums.map((name) => [name, 0])), histograms: Object.fromEntries(histograms.map(([name]) => [name, new Map()])) };
      groups.set(id, group);
    }
    group.n++;
    for (const name of sums) group.sums[name]! += Number(row[`s${r}_${name}`] ?? 0);
    for (const [name, { bucket }] of histograms) {
      const value = row[`h${r}_${name}`];
      if (value === null || value === undefined) continue;
      const b = bucket(Number(value));
      group.histograms[name]!.set(b, (group.histograms[name]!.get(b) ?? 0) + 1);
    }
  }
  if (histograms.length) {
    // Merged with what the tally rows hold (one host folds this table at a time: the fold's lock).
    const days = [...new Set([...groups.values()].map((group) => String(group.key.day)))];
    const scopeKey = spec.scope.map((column) => sql`${sql.ref(column)} in (${sql.join([...new Set([...groups.values()].map((group) => String(group.key[column])))])})`);
    const existing = await sql<Record<string, unknown>>`
      select ${sql.join([...keyColumns, ...histograms.map(([name]) => name)].map((column) => sql.ref(column)))}
      from ${sql.table(tallies)} where day in (${sql.join(days)}) and ${sql.join(scopeKey, sql` and `)}`.execute(trx);
    for (const row of existing.rows) {
      const group = groups.get(JSON.stringify(Object.fromEntries(keyColumns.map((column) => [column, row[column]]))));
      if (!group) continue;
      for (const [name] of histograms) {
        for (const [bucket, count] of Object.entries(JSON.parse(String(row[name] ?? '{}')) as Record<string, number>)) {
          group.histograms[name]!.set(Number(bucket), (group.histograms[name]!.get(Number(bucket)) ?? 0) + count);
        }
      }
    }
  }
  const columns = [...keyColumns, 'n', ...sums, ...histograms.map(([name]) => name)];
  const values = [...groups.values()].map(
    (group) =>
      sql`(${sql.join([
        ...keyColumns.map((column) => group.key[column]),
        group.n,
        ...sums.map((name) => group.sums[name]),
        ...histograms.map(([name]) => JSON.stringify(Object.fromEntries(group.histograms[name]!))),
      ])})`,
  );
  const table = sql.table(tallies);
  const updates = [
    sql`n = ${table}.n + excluded.n`,
    ...sums.map((name) => sql`${sql.ref(name)} = ${table}.${sql.ref(name)} + excluded.${sql.ref(name)}`),
    ...histograms.map(([name]) => sql`${sql.ref(name)} = excluded.${sql.ref(name)}`),
  ];
  // A statement's parameters are bounded (SQLite: 32,766): a fold in bulk over a long span
  // (many days, many gates) makes more groups than one statement may carry.
  const perStatement = Math.max(1, Math.floor(MAX_PARAMETERS / columns.length));
  for (let i = 0; i < values.length; i += perStatement) {
    await sql`
      insert into ${table} (${sql.join(columns.map((column) => sql.ref(column)))}) values ${sql.join(values.slice(i, i + perStatement))}
      on conflict (${sql.join(keyColumns.map((column) => sql.ref(column)))}) do update set ${sql.join(updates)}`.execute(trx);
  }
}

/** Parameters one upsert of the fold carries at most (under SQLite's 32,766 and PostgreSQL's 65,535). */
const MAX_PARAMETERS = 30_000;

/**
 * A tenant's part of a tally filter: its organization and environment and, for a caller limited
 * to sites (or a list's `site_id`, already narrowed into `tenant.sites`), the sites it reaches.
 */
export function tenantTally(tenant: Tenant, siteless?: SitelessRow): Pick<TallyFilter, 'scope' | 'sites'> {
  return {
    scope: { organization_id: tenant.organizationId, environment: tenant.environment },
    ...(siteless && tenant.sites ? { sites: { reach: tenant.sites, siteless } } : {}),
  };
}

/**
 * How a tallied list counts its rows, declared once per request by its store and used for both
 * its `totalResults` (`listTotal`) and its deep pages by `page` (`tallySkip`): the tallies (spec,
 * rollup, and the filter's field filters, window and sites as a `TallyFilter`), unless a free-text
 * search or a filter that narrows to a few rows on an index of its own decides instead.
 */
export interface ListTally {
  spec: TallySpec;
  rollup: Rollup;
  filter: TallyFilter;
  /** A free-text search: counted up to its ceiling, paged as any OFFSET. */
  search?: string;
  /** A filter the tallies do not keep (an exact phone, one resource's id, one actor): counted and paged on its index. */
  narrowed?: unknown;
}

/**
 * A list's `totalResults`, one rule for every list: a free-text search counts up to its ceiling
 * (`totalResultsCapped` past it); a filter that narrows to a few rows on an index of its own (an
 * exact phone, one resource's id, one actor) counts those rows; every other mix of field filters
 * and window comes from the tallies.
 */
export async function listTotal(db: Executor, filtered: () => SelectQueryBuilder<any, any, any>, tally: ListTally): Promise<Total> {
  if (tally.search) return countRowsUpTo(db, filtered(), SEARCH_COUNT_CEILING);
  if (tally.narrowed) return { n: await countRows(filtered()) };
  return { n: await talliedCount(db, tally.spec, tally.rollup, tally.filter) };
}

/**
 * How a list's search looks its text up (server/db/text-search.ts `SearchWay`): by reading the
 * list's rows when, without the search, they are DATABASE_SEARCH_SCAN_ROWS or fewer (counted from
 * the tallies, one statement), so a small organization's search costs its own rows, not the text
 * index's entries of every organization; otherwise in the text index.
 */
export async function searchWay(db: Executor, tally: ListTally): Promise<SearchWay> {
  const most = searchScanRows();
  if (!tally.search || most === 0) return 'index';
  // A list far past the line stays past it for a while: its count is not asked again for a
  // minute (the way only decides the cost; both ways answer alike).
  const key = `${tally.spec.table} ${JSON.stringify(tally.filter)}`;
  const known = LIST_SIZES.get(key);
  if (known && known.rows > 2 * most && Date.now() - known.at < LIST_SIZE_KEPT_MS) return 'index';
  const rows = await talliedCount(db, tally.spec, tally.rollup, tally.filter);
  setNewest(LIST_SIZES, key, { rows, at: Date.now() }, 1000);
  return rows <= most ? 'scan' : 'index';
}

/** Lists' sizes lately counted by `searchWay`, by table and filter (this host's, the thousand latest). */
const LIST_SIZES = new Map<string, { rows: number; at: number }>();
const LIST_SIZE_KEPT_MS = 60_000;

/**
 * Where a deep page by `page` starts, found in the tallies rather than by walking every row
 * before it (issue #45), for a list ordered by its tallies' `dayColumn` then id (server/db/paged.ts
 * `pagedRows`). Undefined where the tallies do not answer the list's filter (a search, a narrowed
 * filter): the page is then an OFFSET as before.
 */
export function tallySkip(db: Executor, tally: ListTally): SkipTo | undefined {
  if (tally.search || tally.narrowed) return undefined;
  // Only a list ordered by the day its rows are tallied under can be skipped by day.
  return async (offset, order) => (order.column.slice(order.column.lastIndexOf('.') + 1) === tally.spec.dayColumn ? skipByTallies(db, tally, offset, order.direction) : undefined);
}

/**
 * For a list in `direction` by the day column, the day holding its row number `offset` (from 0)
 * found by counting rows per month, then per day of that month, from the same three parts as
 * `talliedCount` (tallies, unfolded tail, partial days; the fold moves rows between the first two
 * in one transaction, so each count is exact at its snapshot): `bound` is where that day's end
 * (desc) or start (asc) lies and `rest` how many of the list's rows from there come before the
 * offset (at most a day's). 'past' when the list has no row there. Undefined when the two counts
 * disagree (rows written between them): the caller pages by OFFSET.
 */
async function skipByTallies(db: Executor, { spec, rollup, filter }: ListTally, offset: number, direction: 'desc' | 'asc'): Promise<SkipStart | 'past' | undefined> {
  const month = crossing(await talliedPeriods(db, spec, rollup, filter, 7), offset, direction);
  if (!month) return 'past';
  // The month's days, in the window (a window's ends may be instants: they stay as they are).
  const monthFrom = `${month.period}-01T00:00:00.000Z`;
  const after = nextMonth(month.period);
  const monthBefore = after.length === 7 ? `${after}-01T00:00:00.000Z` : undefined;
  const from = filter.from === undefined || filter.from < monthFrom ? monthFrom : filter.from;
  const before = monthBefore === undefined || (filter.before !== undefined && filter.before < monthBefore) ? filter.before : monthBefore;
  const day = crossing(await talliedPeriods(db, spec, rollup, { ...filter, from, before }, 10, false), offset - month.before, direction);
  if (!day) return undefined;
  if (direction === 'asc') return { bound: `${day.period}T00:00:00.000Z`, rest: offset - month.before - day.before };
  // The last day an ISO date can name has no day after it to bound by.
  if (day.period === LAST_DAY) return undefined;
  return { bound: nextDayStart(day.period), rest: offset - month.before - day.before };
}

/** The period (month or day) holding row number `offset` of a list in `direction`, and how many rows come before that period. */
function crossing(counts: Map<string, number>, offset: number, direction: 'desc' | 'asc'): { period: string; before: number } | undefined {
  const periods = [...counts.keys()].sort();
  if (direction === 'desc') periods.reverse();
  let before = 0;
  for (const period of periods) {
    const n = counts.get(period)!;
    if (offset < before + n) return { period, before };
    before += n;
  }
  return undefined;
}

/**
 * Rows matching per month (`length` 7: the month tallies where they cover whole months) or per
 * day (10: the day tallies), from the same parts as `talliedCount`, in one statement.
 */
async function talliedPeriods(db: Executor, spec: TallySpec, rollup: Rollup, filter: TallyFilter, length: 7 | 10, monthly = true): Promise<Map<string, number>> {
  const { tallies, less, months, unfolded, edges } = parts(spec, filter, monthly);
  const period = (ref: RawBuilder<unknown>) => sql`substr(${ref}, 1, ${sql.lit(length)})`;
  const tallied = (table: string, where: RawBuilder<boolean>, sign = sql``) =>
    sql`select ${period(sql.ref('t.day'))} as p, ${sign}coalesce(sum(t.n), 0) as n from ${sql.table(table)} t where ${where} group by ${period(sql.ref('t.day'))}`;
  const day = sql.ref(`b.${spec.dayColumn}`);
  const counted = (from: RawBuilder<unknown>, where: RawBuilder<boolean>) => sql`select ${period(day)} as p, count(*) as n from ${from} where ${where} group by ${period(day)}`;
  const selects = [
    ...(months ? [tallied(monthlyTable(rollup), months)] : []),
    ...tallies.map((days) => tallied(rollup.table, days)),
    ...less.map((days) => tallied(rollup.table, days, sql`0 - `)),
    ...(unfolded ? [counted(unfoldedTable(db, spec), unfolded)] : []),
    ...(edges ? [counted(sql`${sql.table(spec.table)} b`, edges)] : []),
  ];
  const counts = new Map<string, number>();
  if (selects.length === 0) return counts;
  const { rows } = await sql<{ p: string; n: number | string }>`${sql.join(selects, sql` union all `)}`.execute(db);
  for (const row of rows) counts.set(row.p, (counts.get(row.p) ?? 0) + Number(row.n));
  for (const [p, n] of counts) if (n === 0) counts.delete(p);
  return counts;
}
