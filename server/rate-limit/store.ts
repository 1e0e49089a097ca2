/** What one request did to a key's window. */
export interface WindowState {
  /** The request was counted (it was under the limit). */
  allowed: boolean;
  /** Requests counted in the window, this one included when allowed. */
  count: number;
  /** When the oldest counted request leaves the window (ms since epoch); null when none is counted. */
  resetAt: number | null;
  /** The place this request took in the window, when it was counted: `release` gives it back. */
  slot?: string;
}

/**
 * A sliding-log store: every counted request is remembered for one window. `consume: false`
 * reads the state without counting (a refused request still shows its headers). A counted
 * request is taken atomically: of any number at once, no more than the limit are counted.
 */
export interface RateLimitStore {
  hit(bucket: string, limit: number, nowMs: number, windowMs: number, consume: boolean): Promise<WindowState>;
  /** Gives back a slot `hit` counted (a guess that was right); a slot already gone is nothing. */
  release(bucket: string, slot: string): Promise<void>;
  close(): Promise<void>;
}
