import type { CoreContext } from '../context.ts';
import { okOrStop, SyncStopped } from '../link/sync-stop.ts';
import { applyFeedPage, feedCursor } from './codes.ts';
import { loadPassKeys, storePassKeys } from './pass-keys.ts';

const FEED_PAGE = 1000;

/** What refreshing the caches reads and writes: the link's client, the database, the verifier. */
export type RefreshDeps = Pick<CoreContext, 'db' | 'link' | 'nowIso' | 'timings' | 'verifier'>;

/** The organization's current pass keys replace the stored ones, and the verifier holds them. Stops the sync on anything but a 2xx. */
export async function refreshPassKeys(ctx: RefreshDeps): Promise<void> {
  const body = okOrStop(ctx, await ctx.link.api!.call('get', '/access-codes/pass-keys', { timeoutMs: ctx.timings.requestTimeoutMs }));
  storePassKeys(ctx.db, body.keys);
  ctx.verifier.setKeys(loadPassKeys(ctx.db));
}

/** Every code changed since the cursor, page by page; each page and its cursor commit together. Answers how many. */
export async function pullCodeFeed(ctx: RefreshDeps): Promise<number> {
  let updated = 0;
  for (;;) {
    const cursor = feedCursor(ctx.db);
    const page = okOrStop(
      ctx,
      await ctx.link.api!.call('get', '/access-codes/changes', { params: { query: { cursor, limit: FEED_PAGE } }, timeoutMs: ctx.timings.requestTimeoutMs }),
    );
    // Dropped when the cache was emptied meanwhile (the kiosk moved to another server): read again from where it stands.
    if (!applyFeedPage(ctx.db, page.codes, cursor, page.next_cursor, ctx.nowIso())) continue;
    updated += page.codes.length;
    if (!page.has_more) return updated;
    // "More" with a cursor that does not move on would ask for the same page forever.
    if (!(page.next_cursor > cursor)) {
      throw new SyncStopped(`The code feed did not advance past cursor ${cursor}; it is read again at the next sync`, null);
    }
  }
}
