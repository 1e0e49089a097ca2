import type { RateLimitStore, WindowState } from './store.ts';

/** One bucket's log: request times in order, the live ones from `head` on, and its own window. */
interface Log {
  times: number[];
  head: number;
  /** The longest window this bucket was asked about: the sweep keeps it at least that long. */
  windowMs: number;
}

/** Buckets untouched for their own window are swept after this many hits. */
const SWEEP_EVERY = 10_000;

/**
 * One host's windows, in this process (also the fallback while Redis does not answer). Use the
 * Redis store when several hosts share keys. Expired times are skipped by moving `head` and
 * dropped in bulk once they are half the array: removing them one by one from the front moved
 * the whole window each request (220 µs a request for one key at 3,000 requests a second).
 * A hit reads, counts and answers without awaiting anything, so concurrent hits are atomic.
 */
export function createMemoryRateLimitStore(): RateLimitStore {
  const windows = new Map<string, Log>();
  let hitsSinceSweep = 0;

  /** Drops the buckets whose newest time is older than their own window, never the caller's: a 15-minute sign-in lockout outlives a flood of one-minute API windows. */
  function sweep(nowMs: number) {
    for (const [bucket, log] of windows) {
      if ((log.times.at(-1) ?? 0) <= nowMs - log.windowMs) windows.delete(bucket);
    }
  }

  return {
    async hit(bucket, limit, nowMs, windowMs, consume): Promise<WindowState> {
      if (++hitsSinceSweep >= SWEEP_EVERY) {
        hitsSinceSweep = 0;
        sweep(nowMs);
      }
      const log = windows.get(bucket) ?? { times: [], head: 0, windowMs };
      log.windowMs = Math.max(log.windowMs, windowMs);
      const { times } = log;
      while (log.head < times.length && times[log.head]! <= nowMs - windowMs) log.head++;
      if (log.head > 64 && log.head * 2 >= times.length) {
        times.splice(0, log.head);
        log.head = 0;
      }
      const count = times.length - log.head;
      const allowed = count < limit;
      const counted = allowed && consume;
      if (counted) times.push(nowMs);
      const live = times.length - log.head;
      if (live) windows.set(bucket, log);
      else windows.delete(bucket);
      const state: WindowState = { allowed, count: live, resetAt: live ? times[log.head]! + windowMs : null };
      if (counted) state.slot = String(nowMs);
      return state;
    },
    async release(bucket, slot) {
      const log = windows.get(bucket);
      if (!log) return;
      // Any one entry of the same time is the same slot: the log keeps times, not identities.
      const at = log.times.lastIndexOf(Number(slot));
      if (at < log.head) return;
      log.times.splice(at, 1);
      if (log.times.length === log.head) windows.delete(bucket);
    },
    async close() {
      windows.clear();
    },
  };
}
