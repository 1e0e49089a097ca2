import type { Histogram } from './tallies.ts';

/**
 * Durations in whole seconds, bucketed for the tallies' histograms (server/db/tallies.ts): every
 * second up to 10 minutes is its own bucket, so the response times people watch (seconds to
 * assign, minutes to arrive) keep their exact value; then 10 s up to an hour, a minute up to a
 * day, an hour beyond. A bucket is named by its lowest value.
 */
export function secondsBucket(seconds: number): number {
  if (seconds <= EXACT_UP_TO_S) return Math.max(0, Math.round(seconds));
  const width = bucketWidth(seconds);
  return Math.floor(seconds / width) * width;
}

/** Values up to this are exact. */
export const EXACT_UP_TO_S = 600;

function bucketWidth(seconds: number): number {
  if (seconds <= EXACT_UP_TO_S) return 1;
  if (seconds < 3600) return 10;
  if (seconds < 86_400) return 60;
  return 3600;
}

/** A bucket's value for percentiles: itself when exact, else its middle. */
const valueOf = (bucket: number) => (bucket <= EXACT_UP_TO_S ? bucket : bucket + bucketWidth(bucket) / 2);

/**
 * PostgreSQL's percentile_cont over the histogram's values (linear interpolation between the
 * closest ranks), rounded; `approximate` when a value it used came from a bucket wider than a
 * second.
 */
export function percentileOf(histogram: Histogram, fraction: number): { value: number | null; approximate: boolean } {
  const buckets = [...histogram.entries()].filter(([, count]) => count > 0).sort(([a], [b]) => a - b);
  const count = buckets.reduce((total, [, n]) => total + n, 0);
  if (count === 0) return { value: null, approximate: false };
  const rank = (count - 1) * fraction;
  const at = (position: number) => {
    let seen = 0;
    for (const [bucket, n] of buckets) {
      seen += n;
      if (position < seen) return bucket;
    }
    return buckets[buckets.length - 1]![0];
  };
  const below = at(Math.floor(rank));
  const above = at(Math.ceil(rank));
  const value = Math.round(valueOf(below) + (valueOf(above) - valueOf(below)) * (rank - Math.floor(rank)));
  return { value, approximate: below > EXACT_UP_TO_S || above > EXACT_UP_TO_S };
}

export const histogramCount = (histogram: Histogram) => [...histogram.values()].reduce((total, n) => total + n, 0);
