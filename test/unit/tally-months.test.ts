import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitDays } from '../../server/db/tallies.ts';

/**
 * A window's whole days are read from the month tallies where they make whole months, and from
 * the day tallies at either end, added, or taken away from the end's whole month when that reads
 * fewer days (server/db/tallies.ts, migration 0057): every day of the window counts exactly once,
 * and every day outside it nets to nothing.
 */
const DAY = 86_400_000;
const dayAt = (n: number) => new Date(Date.UTC(2025, 10, 1) + n * DAY).toISOString().slice(0, 10);

/** The days a split covers, within a span that holds every window drawn. */
function covered(split: ReturnType<typeof splitDays>, span: string[]): string[] {
  const inside = (day: string, from?: string, before?: string) => (from === undefined || day >= from) && (before === undefined || day < before);
  return span.filter((day) => {
    const byMonth = split.months ? inside(day.slice(0, 7), split.months.from, split.months.before) : false;
    const byDay = split.days.filter(([from, before]) => inside(day, from, before)).length;
    const taken = split.less.filter(([from, before]) => inside(day, from, before)).length;
    // A day is taken away only from a month that is read, and only once.
    expect(taken, day).toBeLessThanOrEqual(Number(byMonth));
    const counted = Number(byMonth) + byDay - taken;
    expect(counted, day).toBeGreaterThanOrEqual(0);
    expect(counted, day).toBeLessThanOrEqual(1);
    return counted === 1;
  });
}

describe('a window split into whole months and the days at its ends', () => {
  const span = Array.from({ length: 500 }, (_, n) => dayAt(n));

  it('covers every day of the window once, and nothing else', () => {
    fc.assert(
      fc.property(fc.option(fc.integer({ min: 0, max: 499 }), { nil: undefined }), fc.option(fc.integer({ min: 0, max: 499 }), { nil: undefined }), (a, b) => {
        const [from, before] = a !== undefined && b !== undefined && b < a ? [b, a] : [a, b];
        const fromDay = from === undefined ? undefined : dayAt(from);
        const beforeDay = before === undefined ? undefined : dayAt(before);
        const expected = span.filter((day) => (fromDay === undefined || day >= fromDay) && (beforeDay === undefined || day < beforeDay));
        expect(covered(splitDays(fromDay, beforeDay), span)).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });

  it('reads a year from its whole months and the fewest odd days at its ends', () => {
    // Lagos days to the 29th: the last month whole, less its last two days, not its first 28.
    expect(splitDays('2025-11-30', '2026-11-29')).toEqual({
      months: { from: '2025-12', before: '2026-12' },
      days: [['2025-11-30', '2025-12-01']],
      less: [['2026-11-29', '2026-12-01']],
    });
    expect(splitDays('2025-11-29', '2026-11-05')).toEqual({
      months: { from: '2025-12', before: '2026-11' },
      days: [
        ['2025-11-29', '2025-12-01'],
        ['2026-11-01', '2026-11-05'],
      ],
      less: [],
    });
    expect(splitDays('2025-12-01', undefined)).toEqual({ months: { from: '2025-12', before: undefined }, days: [], less: [] });
    // Inside one month: the month less its other days when fewer, else the days themselves.
    expect(splitDays('2026-02-02', '2026-02-27')).toEqual({ months: { from: '2026-02', before: '2026-03' }, days: [], less: [['2026-02-01', '2026-02-02'], ['2026-02-27', '2026-03-01']] });
    expect(splitDays('2026-02-03', '2026-02-10')).toEqual({ days: [['2026-02-03', '2026-02-10']], less: [] });
  });
});
