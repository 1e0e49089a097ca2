import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMemoryRateLimitStore } from '../../server/rate-limit/memory-store.ts';

describe('the in-process sliding log', () => {
  it('answers what a plain list of request times would, over long runs that drop expired times in bulk', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 300 }),
        fc.array(fc.record({ gap: fc.integer({ min: 0, max: 700 }), consume: fc.boolean(), bucket: fc.constantFrom('a', 'b') }), {
          minLength: 300,
          maxLength: 800,
        }),
        async (limit, requests) => {
          const windowMs = 60_000;
          const store = createMemoryRateLimitStore();
          const model = new Map<string, number[]>();
          let now = 1_000_000;
          for (const { gap, consume, bucket } of requests) {
            now += gap;
            const live = (model.get(bucket) ?? []).filter((t) => t > now - windowMs);
            const allowed = live.length < limit;
            if (allowed && consume) live.push(now);
            model.set(bucket, live);
            const state = await store.hit(bucket, limit, now, windowMs, consume);
            expect(state).toEqual({ allowed, count: live.length, resetAt: live.length ? live[0]! + windowMs : null, ...(allowed && consume && { slot: String(now) }) });
          }
        },
      ),
      // No shrinking: a failing run of hundreds of requests is reported as it is, at once.
      { numRuns: 40, endOnFailure: true },
    );
  });

  it('keeps a 15-minute bucket through 10,000 hits of one-minute buckets (the sweep uses each bucket\'s own window)', async () => {
    const store = createMemoryRateLimitStore();
    const fifteen = 15 * 60_000;
    let now = 1_000_000;
    for (let i = 0; i < 10; i++) expect((await store.hit('signin:email:owner@estate.example', 10, now, fifteen, true)).allowed).toBe(true);
    expect((await store.hit('signin:email:owner@estate.example', 10, now, fifteen, false)).allowed).toBe(false);
    // Two minutes later, a flood of API reads whose windows are one minute: the sweep runs.
    now += 120_000;
    for (let i = 0; i < 10_001; i++) await store.hit(`key:${i % 50}`, 1_000_000, now, 60_000, true);
    const held = await store.hit('signin:email:owner@estate.example', 10, now, fifteen, false);
    expect(held.allowed).toBe(false);
    expect(held.count).toBe(10);
    // And a one-minute bucket idle for longer than its window is swept.
    now += fifteen;
    for (let i = 0; i < 10_001; i++) await store.hit('key:busy', 1_000_000_000, now, 60_000, false);
    expect((await store.hit('signin:email:owner@estate.example', 10, now, fifteen, false)).count).toBe(0);
  });

  it('a released slot is given back; one never taken, or already expired, changes nothing', async () => {
    const store = createMemoryRateLimitStore();
    const first = await store.hit('guess', 2, 1000, 60_000, true);
    const second = await store.hit('guess', 2, 1001, 60_000, true);
    expect((await store.hit('guess', 2, 1002, 60_000, true)).allowed).toBe(false);
    await store.release('guess', first.slot!);
    const third = await store.hit('guess', 2, 1003, 60_000, true);
    expect(third).toMatchObject({ allowed: true, count: 2 });
    await store.release('guess', 'no-such-slot');
    await store.release('other', second.slot!);
    expect((await store.hit('guess', 2, 1004, 60_000, false)).count).toBe(2);
    // 300 hits at once (as concurrent requests): exactly the limit counted.
    const burst = await Promise.all(Array.from({ length: 300 }, () => store.hit('burst', 10, 5000, 60_000, true)));
    expect(burst.filter((state) => state.allowed)).toHaveLength(10);
  });
});
