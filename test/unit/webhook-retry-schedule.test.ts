import { describe, expect, it } from 'vitest';
import { nextAttemptAt } from '../../server/webhooks/retry-schedule.ts';

const t0 = new Date('2026-11-22T10:00:00.000Z');
const after = (ms: number) => new Date(t0.getTime() + ms);
const MIN = 60_000;
const HOUR = 60 * MIN;

describe('the webhook retry schedule', () => {
  const fixed = (r: number) => ({ scale: 1, random: () => r });

  it('retries at once, then after 30 s, then after 5 min (the reference)', () => {
    expect(nextAttemptAt(1, t0, t0, fixed(0.5))).toEqual(t0);
    expect(nextAttemptAt(2, t0, t0, fixed(0.5))).toEqual(after(30_000));
    expect(nextAttemptAt(3, after(30_000), t0, fixed(0.5))).toEqual(after(330_000));
  });

  it('then hourly, spread between 54 and 66 minutes', () => {
    expect(nextAttemptAt(4, after(330_000), t0, fixed(0.5))).toEqual(after(330_000 + HOUR));
    expect(nextAttemptAt(4, after(330_000), t0, fixed(0))).toEqual(after(330_000 + 54 * MIN));
    expect(nextAttemptAt(9, after(5 * HOUR), t0, fixed(0.999999))!.getTime()).toBeCloseTo(after(5 * HOUR + 66 * MIN).getTime(), -2);
  });

  it('stops 72 hours after the delivery was queued: the last attempt is the last one that fits', () => {
    expect(nextAttemptAt(70, after(71 * HOUR), t0, fixed(0.5))).toEqual(after(72 * HOUR));
    expect(nextAttemptAt(71, after(72 * HOUR - MIN), t0, fixed(0))).toBeNull();
    expect(nextAttemptAt(71, after(72 * HOUR), t0, fixed(0.5))).toBeNull();
  });

  it('WEBHOOK_RETRY_SCALE divides every delay and the 72-hour limit', () => {
    const fast = { scale: 3600, random: () => 0.5 };
    expect(nextAttemptAt(2, t0, t0, fast)).toEqual(after(Math.round(30_000 / 3600)));
    expect(nextAttemptAt(4, t0, t0, fast)).toEqual(after(1000));
    expect(nextAttemptAt(50, after(71_500), t0, fast)).toBeNull();
    expect(nextAttemptAt(50, after(71_000), t0, fast)).toEqual(after(72_000));
  });
});
