/**
 * When a failed delivery is tried again. The reference's first retries (at once, 30 s, 5 min),
 * then about hourly until 72 hours after the delivery was queued, as Stripe does: a receiver
 * down for a night or a weekend still gets every event, and one gone for good stops costing a
 * connection an hour. The hourly tries are spread by up to 6 minutes either way, so deliveries
 * that failed together (a receiver's outage) do not all come back in the same second.
 */
export const FIRST_RETRY_DELAYS_S = [0, 30, 300] as const;
export const HOURLY_RETRY_S = 3600;
export const HOURLY_JITTER = 0.1;
export const GIVE_UP_AFTER_S = 72 * 3600;

export interface RetrySchedule {
  /** WEBHOOK_RETRY_SCALE: every delay and the 72-hour limit are divided by it (3600: an hour of schedule per second). */
  scale: number;
  /** In [0, 1): spreads the hourly retries. */
  random: () => number;
}

/**
 * After failed attempt `attempt` (1 for the first) made at `attemptedAt`, when the next one is
 * due; null when it would fall past the limit, and the delivery has failed for good.
 */
export function nextAttemptAt(attempt: number, attemptedAt: Date, queuedAt: Date, schedule: RetrySchedule): Date | null {
  const delayS = FIRST_RETRY_DELAYS_S[attempt - 1] ?? HOURLY_RETRY_S * (1 + (2 * schedule.random() - 1) * HOURLY_JITTER);
  const next = attemptedAt.getTime() + (delayS * 1000) / schedule.scale;
  const limit = queuedAt.getTime() + (GIVE_UP_AFTER_S * 1000) / schedule.scale;
  return next > limit ? null : new Date(Math.round(next));
}
