/** What one request did to a key's window. */
export interface WindowState {
  /** The request was counted (it was under the limit). */
  allowed: boolean;
  /** Requests counted in the window, this one included when allowed. */
  count: number;
  /** When the oldest counted request leaves the window (ms since epoch); null when none is counted. */
  resetAt: number | null;
}

/**
 * A sliding-log store: every counted request is remembered for one window. `consume: false`
 * reads the state without counting (a refused request still shows its headers).
 */
export interface RateLimitStore {
  hit(bucket: string, limit: number, nowMs: number, windowMs: number, consume: boolean): Promise<WindowState>;
  close(): Promise<void>;
}
