import { useCallback, useRef, useState } from 'react';
import type { AnswerOf, ItemOf, PathOf, PathParamsOf, QueryOf } from '../api.ts';
import { useLoad } from '../context.tsx';

/** A list route's filters: its query without the page, which the hook owns. */
export type FiltersOf<P extends PathOf<'get'>> = Omit<QueryOf<P>, 'page' | 'limit' | 'cursor'>;

export interface List<T> {
  /** The page the server answered: its rows, the page number and the counts the pager shows. */
  page: { results: T[]; page: number; totalPages: number; totalResults: number; totalResultsCapped?: boolean; next_cursor?: string | null } | undefined;
  items: T[];
  error: string | null;
  loading: boolean;
  reload: () => void;
  setPage: (page: number) => void;
}

/**
 * One page of a list, read from the server with its filters: the one way a console screen lists
 * something, so a filter always reaches the server with the page and the pager counts what
 * matches (a filter applied in the browser would miss what is on page two). A change of filters
 * goes back to page 1; the environment switch reloads (useLoad). `options.path` fills a path's
 * parameters (an endpoint's deliveries).
 *
 * Pages after the first are read by the `next_cursor` of the page before (an index seek, as fast
 * a year deep as on page one: issue #45); the hook remembers each page's cursor so "Newer" goes
 * back without counting. A page it has no cursor for (none yet) is read by number.
 */
export function useList<P extends PathOf<'get'>>(path: P, filters: FiltersOf<P>, options: { limit?: number; path?: PathParamsOf<P> } = {}): List<ItemOf<P>> {
  const limit = options.limit ?? 20;
  const key = JSON.stringify([options.path, filters]);
  // The page belongs to the filters it was chosen under: new filters read page 1 at once, not
  // after an effect has sent the old page's request.
  const [chosen, setChosen] = useState({ key, page: 1 });
  const page = chosen.key === key ? chosen.page : 1;
  const setPage = useCallback((next: number) => setChosen({ key, page: next }), [key]);
  // Each page's cursor, by page number, for these filters (page 1 needs none).
  const cursors = useRef(new Map<string, string>()).current;
  const cursor = page > 1 ? cursors.get(`${key} ${limit} ${page}`) : undefined;
  const loaded = useLoad(
    // The generic path's init is its query with the page; the cast says so.
    (client) =>
      client.get(path, ...([{ params: { path: options.path, query: { ...filters, ...(cursor ? { cursor } : { page }), limit } } }] as never)) as Promise<AnswerOf<'get', P>>,
    [path, key, page, limit],
  );
  const answer = loaded.data as List<ItemOf<P>>['page'];
  if (answer?.next_cursor) cursors.set(`${key} ${limit} ${answer.page + 1}`, answer.next_cursor);
  return { page: answer, items: answer?.results ?? [], error: loaded.error, loading: loaded.loading, reload: loaded.reload, setPage };
}
