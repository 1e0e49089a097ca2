import { describe, expect, it } from 'vitest';
import { threatWindow } from '../../console/src/threat/window.ts';

describe("the threat map's window (issue #48)", () => {
  const now = new Date('2026-11-22T10:00:00Z');

  it('a past day ends at its last second, counting `days` back with that day included', () => {
    expect(threatWindow('2026-02-28', 30, now)).toEqual({ until: '2026-02-28T23:59:59Z', fromDate: '2026-01-30', toDate: '2026-02-28' });
  });

  it('today ends now: no `until`, which the server would refuse as in the future', () => {
    expect(threatWindow('2026-11-22', 90, now)).toEqual({ until: undefined, fromDate: '2026-08-25', toDate: '2026-11-22' });
  });

  it('a day after today (data dated ahead of this clock) is read as today', () => {
    expect(threatWindow('2026-11-23', 1, now)).toEqual({ until: undefined, fromDate: '2026-11-22', toDate: '2026-11-22' });
  });
});
