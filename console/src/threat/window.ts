import { DAY_MS } from '../../../shared/time.ts';

/** The threat map's window as its two requests ask for it. */
export interface ThreatWindow {
  /** The heatmap's `until`: absent when the window runs through today (the server's now). */
  until: string | undefined;
  /** The danger zones' `from_date` and `to_date` (whole days, UTC). */
  fromDate: string;
  toDate: string;
}

const dayOf = (instant: Date) => instant.toISOString().slice(0, 10);

/**
 * `days` days ending on the day `end` (YYYY-MM-DD, UTC), as of `now`. A day in the past ends at
 * its last second; today (or a later day, as a clock behind the data's would have it) ends now,
 * since the server refuses an `until` more than a minute ahead: the default window, which ends
 * on the day the data runs through, is then always a request the server accepts (issue #48).
 */
export function threatWindow(end: string, days: number, now: Date): ThreatWindow {
  const today = dayOf(now);
  const last = end < today ? end : today;
  const until = end < today ? `${end}T23:59:59Z` : undefined;
  const fromDate = dayOf(new Date(Date.parse(`${last}T00:00:00Z`) - (days - 1) * DAY_MS));
  return { until, fromDate, toDate: last };
}
