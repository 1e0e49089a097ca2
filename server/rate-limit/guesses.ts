import type { ApiError } from '../http/errors.ts';
import { retryAfterSeconds } from './limiter.ts';
import type { RateLimitStore } from './store.ts';

/** One count a guess is held to: `limit` wrong guesses per `windowMs` in `bucket`. */
export interface GuessLimit {
  bucket: string;
  limit: number;
}

/** How a check ended: its answer, or what it threw. */
export type GuessOutcome<T> = { value: T } | { error: unknown };

/** A guess that took its slot in every bucket: give them back if it was right. */
export interface GuessTicket {
  /** Guesses counted in the fullest bucket, this one included. */
  count: number;
  /** The guess was right (or was no guess at all): its slots are given back. */
  release(): Promise<void>;
  /**
   * Runs the check and settles the slots: kept when `wrong` says the guess was wrong (then
   * `onWrong` runs before the answer goes), given back on any other outcome, errors included.
   * Answers what the check answered, or throws what it threw.
   */
  settle<T>(check: () => Promise<T>, wrong: (outcome: GuessOutcome<T>) => boolean, onWrong?: () => Promise<void>): Promise<T>;
}

/**
 * Count, then check: a guess takes a slot in each bucket atomically before anything is checked,
 * so a burst of any size is evaluated at most `limit` times, on one host or several (the Redis
 * script, the memory store's synchronous hit). When a bucket is full, the slots already taken
 * are given back and `refused` makes the 429. The caller checks the guess and releases the
 * ticket when it was right; a wrong guess keeps its slots for the window.
 */
export async function takeGuess(
  store: RateLimitStore,
  limits: GuessLimit[],
  nowMs: number,
  windowMs: number,
  refused: (retryAfterS: number) => ApiError,
  options: { waitMs?: number } = {},
): Promise<GuessTicket> {
  const taken: { bucket: string; slot: string }[] = [];
  const release = async () => {
    await Promise.all(taken.splice(0).map(({ bucket, slot }) => store.release(bucket, slot)));
  };
  let count = 0;
  for (const { bucket, limit } of limits) {
    let state = await store.hit(bucket, limit, nowMs, windowMs, true);
    // A full bucket may be full of guesses still being checked that will prove right and give
    // their slots back (a rush of valid codes): wait a little for one, never past `waitMs`.
    // Wrong guesses keep theirs, so under a flood this only delays the 429.
    for (let pause = 10, waited = 0; (!state.allowed || !state.slot) && waited + pause <= (options.waitMs ?? 0); waited += pause, pause *= 2) {
      await new Promise((resolve) => setTimeout(resolve, pause));
      state = await store.hit(bucket, limit, nowMs, windowMs, true);
    }
    if (!state.allowed || !state.slot) {
      await release();
      throw refused(retryAfterSeconds(state.resetAt ?? nowMs + windowMs, nowMs));
    }
    taken.push({ bucket, slot: state.slot });
    count = Math.max(count, state.count);
  }
  return {
    count,
    release,
    async settle(check, wrong, onWrong) {
      let outcome: GuessOutcome<Awaited<ReturnType<typeof check>>>;
      try {
        outcome = { value: await check() };
      } catch (error) {
        outcome = { error };
      }
      if (wrong(outcome)) await onWrong?.();
      else await release();
      if ('error' in outcome) throw outcome.error;
      return outcome.value;
    },
  };
}
