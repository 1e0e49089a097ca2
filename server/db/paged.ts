import { sql, type SelectQueryBuilder } from 'kysely';
import { ApiError } from '../http/errors.ts';
import { FairPlaces } from './fair-queue.ts';
import { DeepPageBusy } from './read-lane.ts';
import type { Executor } from './schema.ts';

/**
 * Pages by `page` deep into a list (issue #45). `page` is an OFFSET, as the reference has it: the
 * database walks every row before the page, so page 5,000 of a year's visits takes hundreds of
 * milliseconds where its cursor takes a few. Ten clients asking for such pages held every place of
 * the read lane and made the lists behind them wait seconds. A page whose offset reaches
 * `fromRows` waits for one of `concurrency` deep-page places on this host (at most `waitMs`, then
 * DeepPageBusy: 503 with Retry-After), so the other places of the lane stay free for everyone
 * else; it then runs in the lane as any read, under its time limit (503 "too broad").
 */
export interface DeepPageSettings {
  fromRows: number;
  concurrency: number;
  waitMs: number;
}

export const DEEP_PAGE_DEFAULTS: DeepPageSettings = { fromRows: 10_000, concurrency: 1, waitMs: 1_000 };

/** Places for deep pages (turns between organizations, a bounded wait), and the settings they were made with. */
class DeepPagePlaces extends FairPlaces {
  constructor(readonly settings: DeepPageSettings) {
    super(settings.concurrency, settings.waitMs, () => new DeepPageBusy(settings.fromRows, settings.waitMs));
  }
}

let deepPages = new DeepPagePlaces(DEEP_PAGE_DEFAULTS);

/** The host's deep-page places (DATABASE_READ_DEEP_*): set once at start-up (server/server.ts). */
export function limitDeepPages(settings: DeepPageSettings): void {
  deepPages = new DeepPagePlaces(settings);
}

/** Runs `read` in a deep-page place: tests hold one to see what a deep page does then. */
export function inDeepPagePlace<T>(read: () => Promise<T>): Promise<T> {
  return deepPages.run(read);
}

/** A list request's position: the reference's `page`, or the `cursor` a previous page gave. */
export interface PageRequest {
  /** From 1; absent means 1 (or, with a cursor, the cursor's page). */
  page?: number;
  limit: number;
  cursor?: string;
}

/**
 * How a list is ordered, declared once per list. `keyset`: by a column (a timestamp) then the id,
 * both the same direction; a cursor carries the last row's pair and the next page starts after
 * it with an index seek, as fast at any depth as the first page. `offset`: small lists ordered
 * otherwise (sites by default first, then name), whose cursor carries the offset.
 */
export type ListOrder =
  | { name: string; kind: 'keyset'; column: string; id: string; direction: 'desc' | 'asc' }
  | { name: string; kind: 'offset'; apply: (query: SelectQueryBuilder<any, any, any>) => SelectQueryBuilder<any, any, any> };

export interface PagedRows<R> {
  rows: R[];
  /** The page's number: 1 for the first, the cursor's for a cursor page (exact while the limit stays the same). */
  page: number;
  /** The next page's cursor; null on the last page. */
  nextCursor: string | null;
}

interface CursorContent {
  /** The list it belongs to. */
  l: string;
  /** The page it opens. */
  p: number;
  /** keyset: the last row's order value and id. */
  k?: [string, string];
  /** offset lists: rows before it. */
  o?: number;
}

/** The 400 a client gets for a cursor and a page together, naming both. */
function cursorWithPage(): ApiError {
  const message = 'cursor: may not be sent together with page (the cursor already says where its page starts)';
  return new ApiError(400, message, {}, [
    { field: 'cursor', message },
    { field: 'page', message: 'page: may not be sent together with cursor' },
  ]);
}

function badCursor(): ApiError {
  const message = 'cursor: not a cursor this list gave (use next_cursor of a page of the same list)';
  return new ApiError(400, message, {}, [{ field: 'cursor', message }]);
}

export function encodeCursor(content: CursorContent): string {
  return Buffer.from(JSON.stringify(content)).toString('base64url');
}

function decodeCursor(text: string, order: ListOrder): CursorContent {
  let content: CursorContent;
  try {
    content = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as CursorContent;
  } catch {
    throw badCursor();
  }
  const pageOk = Number.isInteger(content?.p) && content.p >= 2 && content.p <= 1_000_000_000;
  const keyOk =
    order.kind === 'keyset'
      ? Array.isArray(content.k) && content.k.length === 2 && content.k.every((part) => typeof part === 'string' && part.length <= 200)
      : Number.isInteger(content.o) && content.o! >= 0;
  if (content?.l !== order.name || !pageOk || !keyOk) throw badCursor();
  return content;
}

/** The page's starting point, checked: a cursor and a page together are a 400 naming both. */
export function pagePosition(request: PageRequest, order: ListOrder): { page: number; after?: CursorContent } {
  if (request.cursor !== undefined && request.page !== undefined) throw cursorWithPage();
  if (request.cursor === undefined) return { page: request.page ?? 1 };
  const after = decodeCursor(request.cursor, order);
  return { page: after.p, after };
}

/**
 * Where a deep page by offset of a keyset list starts, found without walking the rows before it
 * (server/db/tallies.ts `tallySkip`): the list's rows from `bound` on (desc: `column < bound`;
 * asc: `column >= bound`), `rest` of them skipped. 'past': the list has no row at that offset.
 * Undefined: not found (the page is read by OFFSET).
 */
export interface SkipStart {
  bound: string;
  rest: number;
}
export type SkipTo = (offset: number, order: Extract<ListOrder, { kind: 'keyset' }>) => Promise<SkipStart | 'past' | undefined>;

/**
 * One page of `query` (filtered, selected, not yet ordered), in the list's order: by `page`
 * (offset, as the reference has it) or by `cursor` (the index seek that keeps a deep page as fast
 * as the first). Reads one row more than the page to know whether there is a next one.
 *
 * A page whose offset is deep (`fromRows`) in a keyset list given `skip` (a tallied list: its
 * rows counted per month and day from the tallies) starts at the day holding its first row and
 * skips only that day's rows before it; what is still deep after that waits for a deep-page place.
 */
export async function pagedRows<Q extends SelectQueryBuilder<any, any, any>>(
  query: Q,
  order: ListOrder,
  request: PageRequest,
  { skip }: { skip?: SkipTo } = {},
): Promise<PagedRows<Awaited<ReturnType<Q['execute']>>[number]>> {
  type Row = Awaited<ReturnType<Q['execute']>>[number];
  let position = pageQuery(query, order, request);
  let from: SelectQueryBuilder<any, any, any> = query;
  if (skip && order.kind === 'keyset' && !position.after && position.offset >= deepPages.settings.fromRows) {
    const start = await skip(position.offset, order);
    if (start === 'past') return pageOf([] as Row[], order, request, position);
    if (start) {
      from = query.where(sql.ref(order.column), order.direction === 'desc' ? '<' : '>=', start.bound);
      const column = sql.ref(order.column);
      const id = sql.ref(order.id);
      const sought = from.orderBy(column, order.direction).orderBy(id, order.direction).offset(start.rest).limit(position.limit);
      position = { ...position, query: sought, offset: start.rest };
    }
  }
  const deep = position.offset >= deepPages.settings.fromRows;
  const paging = deep && order.kind === 'keyset' ? skippedByKey(from, order, position) : position.query;
  const read = () => paging.execute() as Promise<Row[]>;
  const rows = deep ? await deepPages.run(read) : await read();
  return pageOf(rows, order, request, position);
}

/**
 * A deep page by offset, its skipped rows walked in the list's (tenant, column, id) index alone:
 * the ids of the page are found by the offset over the index (an index-only scan), and only the
 * page's rows are read whole. `select *` with the offset read every skipped row from the table
 * (PostgreSQL, page 5,000 of a year's visits: 245 ms, 10,000 heap pages; by the index, 48 ms).
 */
function skippedByKey(query: SelectQueryBuilder<any, any, any>, order: Extract<ListOrder, { kind: 'keyset' }>, position: PageQuery): SelectQueryBuilder<any, any, any> {
  const column = sql.ref(order.column);
  const id = sql.ref(order.id);
  const ids = query.clearSelect().select(id.as('page_id')).orderBy(column, order.direction).orderBy(id, order.direction).offset(position.offset).limit(position.limit);
  return query.where(id, 'in', ids).orderBy(column, order.direction).orderBy(id, order.direction).limit(position.limit);
}

interface PageQuery {
  /** The query seeking or skipping to the page, ordered, one row more than the page. */
  query: SelectQueryBuilder<any, any, any>;
  page: number;
  after?: CursorContent;
  /** Rows skipped by OFFSET. */
  offset: number;
  /** Rows read: the page and one more. */
  limit: number;
}

/** `query` sought or offset to the requested page, in the list's order, limited to the page and one more row. */
function pageQuery(query: SelectQueryBuilder<any, any, any>, order: ListOrder, request: PageRequest): PageQuery {
  const { page, after } = pagePosition(request, order);
  let ordered: SelectQueryBuilder<any, any, any>;
  if (order.kind === 'keyset') {
    const comparison = order.direction === 'desc' ? '<' : '>';
    const column = sql.ref(order.column);
    const id = sql.ref(order.id);
    ordered = query;
    if (after?.k) {
      const [value, lastId] = after.k;
      // (column, id) past the cursor, written so that both engines seek the (column, id) index.
      ordered = ordered.where(sql<boolean>`${column} ${sql.raw(comparison === '<' ? '<=' : '>=')} ${value} and (${column} ${sql.raw(comparison)} ${value} or ${id} ${sql.raw(comparison)} ${lastId})`);
    } else if (page > 1) {
      ordered = ordered.offset((page - 1) * request.limit);
    }
    ordered = ordered.orderBy(column, order.direction).orderBy(id, order.direction);
  } else {
    const offset = after?.o ?? (page - 1) * request.limit;
    ordered = order.apply(query).offset(offset);
  }
  const offset = order.kind === 'keyset' ? (after?.k ? 0 : (page - 1) * request.limit) : (after?.o ?? (page - 1) * request.limit);
  return { query: ordered.limit(request.limit + 1), page, after, offset, limit: request.limit + 1 };
}

/** The page of the rows read by `pageQuery`: the extra row dropped, and the next page's cursor when it was there. */
function pageOf<Row>(rows: Row[], order: ListOrder, request: PageRequest, { page, after }: PageQuery): PagedRows<Row> {
  const more = rows.length > request.limit;
  if (more) rows.length = request.limit;
  let nextCursor: string | null = null;
  if (more) {
    if (order.kind === 'keyset') {
      const last = rows[rows.length - 1] as Record<string, unknown>;
      nextCursor = encodeCursor({ l: order.name, p: page + 1, k: [String(last[bare(order.column)]), String(last[bare(order.id)])] });
    } else {
      nextCursor = encodeCursor({ l: order.name, p: page + 1, o: (after?.o ?? (page - 1) * request.limit) + request.limit });
    }
  }
  return { rows, page, nextCursor };
}

/** `people.created_at` → `created_at`: the name a selected row carries the column under. */
const bare = (column: string) => column.slice(column.lastIndexOf('.') + 1);

/** Every row of a filtered query, counted: for filters a tally cannot answer but an index narrows (an exact phone, one resource's id). */
export async function countRows(query: SelectQueryBuilder<any, any, any>): Promise<number> {
  const row = await query.clearSelect().select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
  return Number((row as { n: number | string }).n);
}

/** The column a searched page's rows carry their matches' count in (removed before they are answered). */
const MATCHES_TOTAL = 'search_matches_total';

/**
 * A searched list's page and its total (issue #45), read in one statement where it can: the
 * matches (up to `ceiling` + 1, each found once by the text index and checked once against the
 * table) are materialized as their order key and id, counted there, sought and ordered there,
 * and only the page's rows are read whole. Read apart, the page and the count each walked the
 * text index and checked every match against the table again: a search cost twice what it found.
 *
 * `query` is the list's filtered query on `table` (no select yet). Where the matches cannot give
 * the page it is read from the table as any page is: more matches than the ceiling (the page
 * must come from all of them; the count is the ceiling, capped), a page by offset reaching past
 * the ceiling (with the count read apart), an empty page after the first (its count read apart).
 */
export async function searchedPage<Row>(
  db: Executor,
  table: string,
  query: SelectQueryBuilder<any, any, any>,
  order: ListOrder,
  request: PageRequest,
  ceiling: number,
): Promise<[PagedRows<Row>, { n: number; capped: boolean }]> {
  const apart = async (): Promise<[PagedRows<Row>, { n: number; capped: boolean }]> =>
    Promise.all([pagedRows(query.selectAll(), order, request) as Promise<PagedRows<Row>>, countRowsUpTo(db, query, ceiling)]);
  const { page, after } = pagePosition(request, order);
  if (order.kind !== 'keyset' || (!after && page * request.limit > ceiling)) return apart();
  const matches = query.clearSelect().select([order.column, order.id]).limit(ceiling + 1);
  // The page sought among the matches (their own columns), then its rows read whole by id.
  const sought = pageQuery(db.selectFrom('search_matches' as any).select([order.column, order.id] as any), order, request);
  const rows = (await db
    .with((cte) => cte('search_matches').materialized(), () => matches as any)
    .selectFrom(sought.query.as('page'))
    .innerJoin(table as any, `${table}.${order.id}`, `page.${order.id}`)
    .selectAll(table as any)
    .select(sql<number>`(select count(*) from search_matches)`.as(MATCHES_TOTAL))
    .orderBy(sql.ref(`page.${order.column}`), order.direction)
    .orderBy(sql.ref(`page.${order.id}`), order.direction)
    .execute()) as Array<Record<string, unknown>>;
  const first = rows[0];
  if (!first) return page === 1 && !after ? [pageOf(rows as Row[], order, request, sought), { n: 0, capped: false }] : apart();
  const n = Number(first[MATCHES_TOTAL]);
  if (n > ceiling) return [(await pagedRows(query.selectAll(), order, request)) as PagedRows<Row>, { n: ceiling, capped: true }];
  for (const row of rows) delete row[MATCHES_TOTAL];
  return [pageOf(rows as Row[], order, request, sought), { n, capped: false }];
}

/** Rows of a filtered query counted up to `ceiling` (a search's): `capped` when there are more. */
export async function countRowsUpTo(db: Executor, query: SelectQueryBuilder<any, any, any>, ceiling: number): Promise<{ n: number; capped: boolean }> {
  const limited = query.clearSelect().select(sql.lit(1).as('one')).limit(ceiling + 1);
  const { rows } = await sql<{ n: number | string }>`select count(*) as n from (${limited}) as matches`.execute(db);
  const n = Number(rows[0]!.n);
  return n > ceiling ? { n: ceiling, capped: true } : { n, capped: false };
}

/** A small list's page and its count, both read from the table (a tenant's keys, sites, kiosks, people: tens or hundreds of rows). */
export async function pageAndCount<Q extends SelectQueryBuilder<any, any, any>>(query: Q, order: ListOrder, request: PageRequest) {
  const [paged, total] = await Promise.all([pagedRows(query, order, request), countRows(query)]);
  return { ...paged, total };
}

/** One page of a list held in memory (the danger zones): by `page`, or by a cursor that carries the offset. */
export function pageOfArray<T>(items: readonly T[], name: string, request: PageRequest) {
  const order: ListOrder = { name, kind: 'offset', apply: (query) => query };
  const { page, after } = pagePosition(request, order);
  const offset = after?.o ?? (page - 1) * request.limit;
  const rows = items.slice(offset, offset + request.limit);
  const nextCursor = offset + request.limit < items.length ? encodeCursor({ l: name, p: page + 1, o: offset + request.limit }) : null;
  return { rows, page, nextCursor, total: items.length };
}
