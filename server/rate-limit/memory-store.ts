import type { RateLimitStore, WindowState } from './store.ts';

/** One bucket's log: request times in order, the live ones from `head` on. */
interface Log {
  times: number[];
  head: number;
}

/**
 * One host's windows, in this process (also the fallback while Redis does not answer). Use the
 * Redis store when several hosts share keys. Expired times are skipped by moving `head` and
 * dropped in bulk once they are half the array: removing them one by one from the front moved
 * the whole window each request (220 µs a request for one key at 3,000 requests a second).
 */
export function createMemoryRateLimitStore(): RateLimitStore {
  const windows = new Map<string, Log>();
  let hitsSinceSweep = 0;

  function sweep(nowMs: number, windowMs: number) {
    for (const [bucket, log] of windows) {
      if ((log.times.at(-1) ?? 0) <= nowMs - windowMs) windows.delete(bucket);
    }
  }

  return {
    async hit(bucket, limit, nowMs, windowMs, consume): Promise<WindowState> {
      if (++hitsSinceSweep >= 10_000) {
        hitsSinceSweep = 0;
        sweep(nowMs, windowMs);
      }
      const log = windows.get(bucket) ?? { times: [], head: 0 };
      const { times } = log;
      while (log.head < times.length && times[log.head]! <= nowMs - windowMs) log.head++;
      if (log.head > 64 && log.head * 2 >= times.length) {
        times.splice(0, log.head);
        log.head = 0;
      }
      const count = times.length - log.head;
      const allowed = count < limit;
      if (allowed && consume) times.push(nowMs);
      const counted = times.length - log.head;
      if (counted) windows.set(bucket, log);
      else windows.delete(bucket);
      return { allowed, count: counted, resetAt: counted ? times[log.head]! + windowMs : null };
    },
    async close() {
      windows.clear();
    },
  };
}
