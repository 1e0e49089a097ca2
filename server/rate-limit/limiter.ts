import type { Response } from 'express';
import type { Clock } from '../clock.ts';
import { ApiError } from '../http/errors.ts';
import type { RateLimitStore } from './store.ts';

export const RATE_WINDOW_MS = 60_000;

/** Whole seconds until `resetAt`, at least one: what a 429's Retry-After says. */
export function retryAfterSeconds(resetAtMs: number, nowMs: number): number {
  return Math.max(1, Math.ceil((resetAtMs - nowMs) / 1000));
}

/**
 * `count`: counted, 429 when the window is full. `read`: headers only (a request refused for
 * another reason). `count-never-refuse`: counted while the window has room, never a 429 (an SOS).
 */
export type LimitMode = 'count' | 'read' | 'count-never-refuse';

export interface RateLimiter {
  /** Applies the key's one-minute window as `mode` says and sets the three `X-RateLimit-*` headers. */
  apply(res: Response, keyId: string, limitPerMinute: number, mode: LimitMode): Promise<void>;
}

export function createRateLimiter(store: RateLimitStore, clock: Clock): RateLimiter {
  // A window's reset time is the same for every request in it: formatted once.
  let reset = { at: Number.NaN, text: '' };
  return {
    async apply(res, keyId, limit, mode) {
      const nowMs = clock.now().getTime();
      const state = await store.hit(`key:${keyId}`, limit, nowMs, RATE_WINDOW_MS, mode !== 'read');
      const resetAt = state.resetAt ?? nowMs;
      if (reset.at !== resetAt) reset = { at: resetAt, text: new Date(resetAt).toISOString() };
      res.setHeader('X-RateLimit-Limit', String(limit));
      res.setHeader('X-RateLimit-Remaining', String(Math.max(0, limit - state.count)));
      res.setHeader('X-RateLimit-Reset', reset.text);
      if (mode === 'count' && !state.allowed) {
        const retryAfter = retryAfterSeconds(resetAt, nowMs);
        throw new ApiError(429, `Rate limit of ${limit} requests per minute exceeded; retry in ${retryAfter} s`, {
          'Retry-After': String(retryAfter),
        });
      }
    },
  };
}
