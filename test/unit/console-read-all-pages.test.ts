import { describe, expect, it } from 'vitest';
import type { Client } from '../../console/src/api.ts';

type Query = Record<string, unknown>;
import { readAllPages } from '../../console/src/lists/read-all-pages.ts';

/** A list of `total` numbered items, served a page at a time as the API does (a cursor names the last item read); records what was asked. */
function listOf(total: number): { client: Client; asked: Query[] } {
  const asked: Query[] = [];
  const client = {
    // openapi-fetch's init, as the console's client takes it.
    async get(_path: string, init: { params?: { query?: Query } } = {}) {
      const query = init.params?.query ?? {};
      asked.push(query);
      const limit = Number(query.limit);
      const after = query.cursor === undefined ? 0 : Number(String(query.cursor).slice('after-'.length));
      const results = Array.from({ length: Math.max(0, Math.min(limit, total - after)) }, (_, i) => after + i + 1);
      const last = results.at(-1) ?? after;
      return { results, page: after / limit + 1, limit, totalPages: Math.max(1, Math.ceil(total / limit)), totalResults: total, next_cursor: last < total ? `after-${last}` : null };
    },
  } as unknown as Client;
  return { client, asked };
}

describe('readAllPages: the whole list, or says it is not', () => {
  it('reads every page of a list shorter than the bound, with the caller\'s filters on each', async () => {
    const { client, asked } = listOf(250);
    const read = await readAllPages(client, '/access-logs', { status: 'checked_in' }, 10_000);
    expect(read).toEqual({ items: Array.from({ length: 250 }, (_, i) => i + 1), total: 250, complete: true });
    // Each page after the first by the one before's next_cursor.
    expect(asked).toEqual([{ status: 'checked_in', limit: 100 }, { status: 'checked_in', limit: 100, cursor: 'after-100' }, { status: 'checked_in', limit: 100, cursor: 'after-200' }]);
  });

  it('stops at the bound and says so, with the total the server counts', async () => {
    const { client, asked } = listOf(12_345);
    const read = await readAllPages(client, '/access-logs', {}, 1_000);
    expect(read.complete).toBe(false);
    expect(read.items).toHaveLength(1_000);
    expect(read.total).toBe(12_345);
    expect(asked).toHaveLength(10);
  });

  it('an empty list is complete', async () => {
    expect(await readAllPages(listOf(0).client, '/incidents', {}, 100)).toEqual({ items: [], total: 0, complete: true });
  });
});
