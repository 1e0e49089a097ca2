import type { Response } from 'express';
import type { Clock } from '../clock.ts';
import { ApiError } from '../http/errors.ts';
import type { RateLimitStore } from './store.ts';

export const RATE_WINDOW_MS = 60_000;

/** Whole seconds until `resetAt`, at least one: what a 429's Retry-After says. */
export function retryAfterSeconds(resetAtMs: number, nowMs: number): number {
  return Math.max(1, Math.ceil((resetAtMs - nowMs) / 1000));
}

export interface RateLimiter {
  /**
   * Counts a request against the key's one-minute window (or only reads it when `consume` is
   * false), sets the three `X-RateLimit-*` headers, and throws 429 when the window is full.
   */
  apply(res: Response, keyId: string, limitPerMinute: number, consume: boolean): Promise<void>;
}

export function createRateLimiter(store: RateLimitStore, clock: Clock): RateLimiter {
  return {
    async apply(res, keyId, limit, consume) {
      const nowMs = clock.now().getTime();
      const state = await store.hit(`key:${keyId}`, limit, nowMs, RATE_WINDOW_MS, consume);
      const resetAt = state.resetAt ?? nowMs;
      res.set({
        'X-RateLimit-Limit': String(limit),
        'X-RateLimit-Remaining': String(Math.max(0, limit - state.count)),
        'X-RateLimit-Reset': new Date(resetAt).toISOString(),
      });
      if (consume && !state.allowed) {
        const retryAfter = retryAfterSeconds(resetAt, nowMs);
        throw new ApiError(429, `Rate limit of ${limit} requests per minute exceeded; retry in ${retryAfter} s`, {
          'Retry-After': String(retryAfter),
        });
      }
    },
  };
}
