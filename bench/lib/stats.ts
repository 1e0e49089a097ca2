/** The numbers every benchmark section reports, computed one way. */

/** mulberry32: a small seeded PRNG, uniform in [0, 1), so every run draws the same data. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 0x1_0000_0000;
  };
}

/** The nearest-rank percentile of values sorted ascending (0 when there are none). */
export function percentile(sorted: readonly number[], p: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export interface Summary {
  count: number;
  p50: number;
  p99: number;
  mean: number;
  min: number;
  max: number;
}

export function summarize(values: readonly number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  const mean = sorted.length ? sorted.reduce((sum, v) => sum + v, 0) / sorted.length : 0;
  return { count: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), mean, min: sorted[0] ?? 0, max: sorted.at(-1) ?? 0 };
}

/** A number with thousands separators and a fixed number of decimals. */
export const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
