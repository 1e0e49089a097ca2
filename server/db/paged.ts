import { sql, type SelectQueryBuilder } from 'kysely';
import { ApiError } from '../http/errors.ts';
import type { Executor } from './schema.ts';

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
 * One page of `query` (filtered, selected, not yet ordered), in the list's order: by `page`
 * (offset, as the reference has it) or by `cursor` (the index seek that keeps a deep page as fast
 * as the first). Reads one row more than the page to know whether there is a next one.
 */
export async function pagedRows<Q extends SelectQueryBuilder<any, any, any>>(
  query: Q,
  order: ListOrder,
  request: PageRequest,
): Promise<PagedRows<Awaited<ReturnType<Q['execute']>>[number]>> {
  type Row = Awaited<ReturnType<Q['execute']>>[number];
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
  const rows = (await ordered.limit(request.limit + 1).execute()) as Row[];
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
