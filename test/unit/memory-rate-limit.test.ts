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
            expect(state).toEqual({ allowed, count: live.length, resetAt: live.length ? live[0]! + windowMs : null });
          }
        },
      ),
      // No shrinking: a failing run of hundreds of requests is reported as it is, at once.
      { numRuns: 40, endOnFailure: true },
    );
  });
});
