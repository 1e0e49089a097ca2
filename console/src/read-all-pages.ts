import type { Client, Query } from './api.ts';
import type { Page } from './types.ts';

/** What a walk over a list's pages found, and whether it is the whole list. */
export interface AllPages<T> {
  items: T[];
  /** How many the server says match (`totalResults` of the last page read). */
  total: number;
  /** False when it stopped at `most` before the end: say so, never show a part as the whole. */
  complete: boolean;
}

/**
 * Every page of a list, 100 at a time, up to `most` items. The one way the console reads a
 * whole list (the board, a CSV export), so each says when it stopped short instead of cutting
 * silently.
 */
export async function readAllPages<T>(
  client: Client,
  path: string,
  query: Query,
  most: number,
  onPage?: (page: number) => void,
): Promise<AllPages<T>> {
  const items: T[] = [];
  let total = 0;
  for (let page = 1; ; page += 1) {
    onPage?.(page);
    const answer = await client.get<Page<T>>(path, { ...query, limit: 100, page });
    items.push(...answer.results);
    total = answer.totalResults;
    if (page >= answer.totalPages) return { items, total, complete: true };
    if (items.length >= most) return { items: items.slice(0, most), total, complete: false };
  }
}
