import type { Client, ItemOf, PathOf, QueryOf } from '../api.ts';

/** What a walk over a list's pages found, and whether it is the whole list. */
export interface AllPages<T> {
  items: T[];
  /** How many the server says match (`totalResults` of the last page read). */
  total: number;
  /** False when it stopped at `most` before the end: say so, never show a part as the whole. */
  complete: boolean;
}

/**
 * Every page of a list, 100 at a time, up to `most` items, each page after the first by the
 * `next_cursor` of the one before (as fast deep in a year as at its start). The one way the
 * console reads a whole list (the board, a CSV export), so each says when it stopped short
 * instead of cutting silently.
 */
export async function readAllPages<P extends PathOf<'get'>>(
  client: Client,
  path: P,
  query: Omit<QueryOf<P>, 'page' | 'limit' | 'cursor'>,
  most: number,
  onPage?: (page: number) => void,
): Promise<AllPages<ItemOf<P>>> {
  const items: ItemOf<P>[] = [];
  let total = 0;
  let cursor: string | undefined;
  for (let page = 1; ; page += 1) {
    onPage?.(page);
    // The generic path's init is the list's query with its cursor; the cast says so.
    const answer = (await client.get(path, ...([{ params: { query: { ...query, limit: 100, ...(cursor && { cursor }) } } }] as never))) as {
      results: ItemOf<P>[];
      totalResults: number;
      next_cursor: string | null;
    };
    items.push(...answer.results);
    total = answer.totalResults;
    if (!answer.next_cursor) return { items, total, complete: true };
    if (items.length >= most) return { items: items.slice(0, most), total, complete: false };
    cursor = answer.next_cursor;
  }
}
