import type { RateLimitStore, WindowState } from './store.ts';

/** One host's windows, in this process. Use the Redis store when several hosts share keys. */
export function createMemoryRateLimitStore(): RateLimitStore {
  const windows = new Map<string, number[]>();
  let hitsSinceSweep = 0;

  function sweep(nowMs: number, windowMs: number) {
    for (const [bucket, times] of windows) {
      if ((times.at(-1) ?? 0) <= nowMs - windowMs) windows.delete(bucket);
    }
  }

  return {
    async hit(bucket, limit, nowMs, windowMs, consume): Promise<WindowState> {
      if (++hitsSinceSweep >= 10_000) {
        hitsSinceSweep = 0;
        sweep(nowMs, windowMs);
      }
      const times = windows.get(bucket) ?? [];
      let expired = 0;
      while (expired < times.length && times[expired]! <= nowMs - windowMs) expired++;
      if (expired) times.splice(0, expired);
      const allowed = times.length < limit;
      if (allowed && consume) times.push(nowMs);
      if (times.length) windows.set(bucket, times);
      else windows.delete(bucket);
      return { allowed, count: times.length, resetAt: times.length ? times[0]! + windowMs : null };
    },
    async close() {
      windows.clear();
    },
  };
}
